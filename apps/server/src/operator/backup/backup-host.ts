import { loadConfig, type Config } from '../../config.ts';
import { hostLayout, type HostLayout } from '../host-layout.ts';
import { OperatorProblem } from '../operator-problem.ts';
import { readSettingsFile, type Settings } from '../settings-file.ts';

/** What backup and restore read first: the layout, the settings file and the server's settings. */
export interface BackupHost {
  layout: HostLayout;
  settings: Settings;
  config: Config;
}

export function backupHost(root: string | undefined, command: string): BackupHost {
  const layout = hostLayout(root ?? '/');
  const settings = readSettingsFile(layout.settingsFile);
  if (!settings) {
    throw new OperatorProblem(
      `Settings file ${layout.settingsFile}: missing — ${command} works on an installed host: npm run atrium -- install${layout.root === '/' ? '' : ` --root ${layout.root}`} --public-url https://…`,
    );
  }
  // A placeholder keeps loadConfig from generating a secret in DATA_DIR when the file has none.
  const config = loadConfig({ ...settings, ATRIUM_SECRET: settings.ATRIUM_SECRET ?? 'backup'.repeat(8) });
  return { layout, settings, config };
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/**
 * Retention: what a small business keeps (a week of days, a month of weeks, half a year of
 * months), and the last three whatever their day: restic keeps one snapshot a day under
 * --keep-daily, so without --keep-last a backup made by hand before an update would remove that
 * night's scheduled one.
 */
export function keepOptions(settings: Settings): string[] {
  const keep = (key: string, fallback: number) => {
    const value = settings[key] ?? String(fallback);
    if (!/^\d+$/.test(value))
      throw new OperatorProblem(`Setting ${key}=${value}: a whole number of snapshots`);
    return value;
  };
  return [
    '--keep-last',
    keep('BACKUP_KEEP_LAST', 3),
    '--keep-daily',
    keep('BACKUP_KEEP_DAILY', 7),
    '--keep-weekly',
    keep('BACKUP_KEEP_WEEKLY', 4),
    '--keep-monthly',
    keep('BACKUP_KEEP_MONTHLY', 6),
  ];
}
