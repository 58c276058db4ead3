import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Writes `text` to `dir/name` with `mode` unless the file already holds it: through a temporary
 * file renamed over the old one, so a reader (OpenDKIM, Roundcube) never sees half a file.
 * Returns whether it wrote. The mode is set explicitly: Atrium's umask 077 would take a group's
 * bit away, and a stray temporary file may carry other bits.
 */
export function writeFileIfChanged(dir: string, name: string, text: string, mode: number): boolean {
  const file = path.join(dir, name);
  if (readOrNull(file) === text) return false;
  const temporary = path.join(dir, `.${name}.${process.pid}.tmp`);
  writeFileSync(temporary, text, { mode });
  chmodSync(temporary, mode);
  renameSync(temporary, file);
  return true;
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
