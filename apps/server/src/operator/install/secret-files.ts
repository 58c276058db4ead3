import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';

/** The user a daemon reads the file as, when it is not root (Caddy runs as caddy). */
export interface SecretReader {
  name: string;
  uid: number;
}

/**
 * Why install must not hand `file` (a private key given as `option`) to a daemon, or undefined
 * when it may (issue 38). Group or everyone may not read it: the key would be anyone's on this
 * host, and install would spread it to every daemon. With `reader` (on a host: Caddy, which reads
 * it as user caddy; Postfix and Dovecot read it as root) the file must also be that user's, since
 * 0600 lets only its owner (and root) read it.
 */
export function secretFileProblem(option: string, file: string, reader?: SecretReader): string | undefined {
  let stat;
  try {
    stat = statSync(file);
  } catch (error) {
    return `${option} ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (!stat.isFile()) return `${option} ${file}: not a file`;
  const mode = stat.mode & 0o777;
  if (mode & 0o077) {
    const who = mode & 0o007 ? 'everyone on this host' : 'its group';
    return `${option} ${file}: a private key that ${who} can read (mode ${mode.toString(8).padStart(4, '0')}) — chmod 600 ${file}${
      reader && stat.uid !== reader.uid ? ` && chown ${reader.name} ${file}` : ''
    }`;
  }
  if (reader && stat.uid !== reader.uid) {
    return `${option} ${file}: ${reader.name === 'caddy' ? 'Caddy' : reader.name} reads it as user ${reader.name}, who does not own it — chown ${reader.name} ${file}`;
  }
  return undefined;
}

/** The uid of a system user, or undefined when there is none (yet: install may create it). */
export function uidOfUser(name: string): number | undefined {
  const run = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  return run.status === 0 ? Number(run.stdout.trim()) : undefined;
}
