import { readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import type { HostItem } from '../install/host-changes.ts';
import { parseInstallOptions } from '../install/install-options.ts';
import { installPlan, installSettings } from '../install/install-plan.ts';
import { readSettingsFile } from '../settings-file.ts';

/**
 * What install would leave on this host today, from the options it recorded in the settings file:
 * the expected content, owner and mode of every file and directory (install-plan.ts). Doctor
 * compares the host with it; it writes nothing.
 */
export function expectedHost(layout: HostLayout, checkout: string): HostItem[] | undefined {
  const settings = readSettingsFile(layout.settingsFile);
  if (!settings) return undefined;
  const options = parseInstallOptions(['--root', layout.root], checkout, settings);
  let release = 'unknown';
  try {
    release = path.basename(readlinkSync(layout.current));
  } catch {
    // No release deployed: the link's own item says so; nothing else depends on it.
  }
  const items = installPlan(options, layout, installSettings(options, layout, settings), release);
  // The settings file is the operator's too (SMTP_URL, DNS_SERVERS… added by hand): its owner and
  // mode are install's, its content is compared as it is.
  return items.map((item) =>
    item.kind === 'file' && item.path === layout.settingsFile
      ? { ...item, content: readFileSync(item.path, 'utf8') }
      : item,
  );
}

/** The fix for anything install owns: run it again (`--dry-run` first lists what it changes). */
export const reinstallCommand = (layout: HostLayout) =>
  `npm run atrium -- install${layout.root === '/' ? '' : ` --root ${layout.root}`} (--dry-run lists the changes first)`;
