import type { Config } from '../config.ts';

/** The address of this host's Atrium process (PORT on loopback when it listens on every address). */
export function localServerUrl(config: Config, pathname: string): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}${pathname}`;
}
