import { readFileSync } from 'node:fs';

/**
 * The service's settings file (/etc/atrium/atrium.env): `KEY=value` lines, read by systemd's
 * EnvironmentFile=, the init script and every operator command. Values are written unquoted and
 * never contain a newline; `#` starts a comment line only.
 */
export type Settings = Record<string, string>;

export function parseSettings(text: string): Settings {
  const settings: Settings = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const equals = trimmed.indexOf('=');
    if (equals < 1) continue;
    settings[trimmed.slice(0, equals).trim()] = trimmed.slice(equals + 1).trim();
  }
  return settings;
}

/** The settings in `file`, or undefined when there is none yet (a first install). */
export function readSettingsFile(file: string): Settings | undefined {
  try {
    return parseSettings(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export function formatSettings(settings: Settings, header: string): string {
  const lines = Object.entries(settings).map(([key, value]) => {
    if (/[\n\r]/.test(value)) throw new Error(`setting ${key} holds a line break`);
    return `${key}=${value}`;
  });
  return `${header}${lines.join('\n')}\n`;
}
