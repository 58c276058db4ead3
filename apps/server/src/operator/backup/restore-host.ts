import { spawnSync } from 'node:child_process';
import { lchownSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { apply, difference, hostOwnership } from '../install/host-changes.ts';
import { parseInstallOptions } from '../install/install-options.ts';
import { installPlan, installSettings, MANAGED } from '../install/install-plan.ts';
import { controlService } from '../service-control.ts';
import type { Settings } from '../settings-file.ts';

/**
 * What a snapshot's settings file gives the host it is restored onto: its identity and secrets,
 * never this host's places. ATRIUM_SECRET seals every secret in the database (apps' client
 * secrets, authenticator keys) and derives Dovecot's client secret and master password;
 * OPERATOR_TOKEN is what the monitors were given; BACKUP_TOKEN goes with them.
 */
const FROM_SNAPSHOT = ['ATRIUM_SECRET', 'OPERATOR_TOKEN', 'BACKUP_TOKEN'];

/**
 * The settings of a host restored from `snapshot` onto this one (`installed`, what its own install
 * wrote): the secrets above from the snapshot; what install decides (DATABASE_URL, DATA_DIR, the
 * mail daemons' sockets and directories, ports, ATRIUM_INSTALL_*) from this host; and of the
 * operator's own lines (a relay, provider keys, BACKUP_TIME…) this host's where it has the line
 * and the snapshot's where only the snapshot has it. This host's SMTP_URL is install's loopback
 * relay unless its operator set another: the old host's operator's relay then comes back.
 */
export function restoredSettings(installed: Settings, snapshot: Settings): Settings {
  const merged: Settings = { ...installed };
  for (const [key, value] of Object.entries(snapshot)) {
    if (FROM_SNAPSHOT.includes(key)) merged[key] = value;
    else if (!MANAGED.test(key) && !(key in installed)) merged[key] = value;
  }
  const installRelay = `smtp://127.0.0.1:${installed.ATRIUM_INSTALL_RELAY_PORT ?? ''}`;
  const oldRelay = `smtp://127.0.0.1:${snapshot.ATRIUM_INSTALL_RELAY_PORT ?? ''}`;
  if (installed.SMTP_URL === installRelay && snapshot.SMTP_URL && snapshot.SMTP_URL !== oldRelay) {
    merged.SMTP_URL = snapshot.SMTP_URL;
  }
  return merged;
}

/**
 * install's files written again from the restored settings, as `install` would on its next run:
 * the settings file, and what derives from the restored secret (Dovecot's
 * atrium-oauth2-token/-password.conf.ext, atrium-master-users). Only what differs is written; the
 * release link is left as it is. Returns the lines to print and the services whose files changed.
 */
export function rewriteInstallFiles(
  layout: HostLayout,
  settings: Settings,
): { changed: string[]; affected: Set<string> } {
  const args = layout.root === '/' ? [] : ['--root', layout.root];
  const o = parseInstallOptions(args, layout.current, settings);
  let release = '';
  try {
    release = path.basename(readlinkSync(layout.current));
  } catch {
    // No release link: its item is skipped below anyway.
  }
  const owners = hostOwnership(process.getuid?.() === 0);
  const changed: string[] = [];
  const affected = new Set<string>();
  for (const item of installPlan(o, layout, installSettings(o, layout, settings), release)) {
    if (item.kind === 'link') continue;
    const why = difference(item, owners);
    if (!why) continue;
    apply(item, owners);
    changed.push(why);
    for (const service of item.kind === 'file' ? (item.affects ?? []) : []) affected.add(service);
  }
  return { changed, affected };
}

/**
 * The daemons whose files changed, restarted as install restarts them (Atrium aside: restore
 * runs while it is stopped). Under --root the daemons are the test's, not services: a running
 * Dovecot is told to reload its files, as doctor tells the operator of such a host.
 */
export function reloadDaemons(layout: HostLayout, affected: Set<string>): string[] {
  const lines: string[] = [];
  for (const service of [...affected].filter((s) => s !== 'atrium').sort()) {
    if (layout.root === '/') {
      const result = controlService(layout, service, 'restart');
      lines.push(
        `${result.ok ? '✓' : '✗'} ${result.command}${result.ok ? '' : `: ${result.output.split('\n').pop()}`}`,
      );
    } else if (service === 'dovecot') {
      const conf = path.join(layout.dovecotDir, 'dovecot.conf');
      const run = spawnSync('doveadm', ['-c', conf, 'reload'], { encoding: 'utf8' });
      lines.push(
        run.status === 0
          ? `✓ doveadm -c ${conf} reload`
          : `Dovecot is not running: it reads the new files when it starts (doveadm -c ${conf} reload: ${run.stderr.trim()})`,
      );
    }
  }
  return lines;
}

/** `dir` and everything below it given to `user` (restic restored the old host's ids). */
export function giveTo(dir: string, user: string): void {
  const owners = hostOwnership(true);
  const uid = owners.uid(user);
  const gid = owners.gid(user);
  const walk = (at: string) => {
    lchownSync(at, uid, gid);
    if (lstatSync(at).isDirectory()) for (const name of readdirSync(at)) walk(path.join(at, name));
  };
  walk(dir);
}
