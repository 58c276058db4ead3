import path from 'node:path';
import { userInfo } from 'node:os';
import type { Config } from '../config.ts';

/** What a system error code means, in the words an operator reads. */
export const ERRNO_MEANINGS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'does not exist',
  ENOTDIR: 'a path component is not a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EADDRINUSE: 'address already in use',
  EADDRNOTAVAIL: 'address not available on this host',
};

interface SystemError {
  code?: string;
  syscall?: string;
  path?: string;
  address?: string;
  port?: number;
}

/**
 * A system error at start-up (a port in use, a socket's directory missing or not writable, a
 * data directory it may not create) as one line: the setting, what is wrong, what to do. Undefined
 * for anything else, which is printed as it is.
 */
export function startupProblem(error: unknown, config: Config): string | undefined {
  const e = error as SystemError;
  const meaning = e.code ? ERRNO_MEANINGS[e.code] : undefined;
  if (!meaning) return undefined;
  const user = userInfo().username;
  const reason = `${meaning} (${e.code})`;
  if (e.syscall === 'listen' || e.syscall === 'bind') {
    if (e.path || (e.address && e.address.startsWith('/'))) {
      const socket = e.path ?? e.address!;
      const setting = socket === config.mail.dictSocket ? 'MAIL_DICT_SOCKET ' : '';
      return (
        `${setting}${socket}: ${reason} — its directory ${path.dirname(socket)} must exist and be writable ` +
        `by ${user} (install makes /run/atrium: RuntimeDirectory=atrium, or the init script)`
      );
    }
    const socketmap = config.mail.socketmap;
    const setting =
      socketmap && e.port === socketmap.port
        ? 'MAIL_SOCKETMAP_ADDRESS'
        : e.port === config.port
          ? 'PORT'
          : 'Port';
    const fix =
      e.code === 'EADDRINUSE'
        ? 'another process listens there: stop it, or choose another port'
        : e.code === 'EACCES'
          ? 'ports below 1024 need privileges: use a higher port behind Caddy'
          : 'choose an address of this host';
    return `${setting} ${e.address ?? ''}:${e.port ?? ''}: ${reason} — ${fix}`;
  }
  if (e.path) {
    const setting = e.path.startsWith(path.resolve(config.dataDir)) ? 'DATA_DIR ' : '';
    const fix =
      e.code === 'ENOSPC'
        ? 'free space on that file system'
        : e.code === 'ENOENT'
          ? 'create it, or correct the setting'
          : `give it to the user running Atrium (${user})`;
    return `${setting}${e.path}: ${reason} — ${fix}`;
  }
  return undefined;
}
