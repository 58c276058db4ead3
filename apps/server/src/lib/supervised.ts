/**
 * Whether this server runs under Atrium's supervisor (supervisor/supervisor.ts), which starts a new
 * release's server beside the serving one: both then share their TCP ports (SO_REUSEPORT) until
 * the old one has drained, and the new one says when it is ready.
 */
export const supervised = process.env.ATRIUM_SUPERVISED === '1';

/** The messages a supervised server sends its supervisor over the IPC channel. */
export type ServerMessage = { type: 'ready' };

export function tellSupervisor(message: ServerMessage): void {
  if (supervised) process.send?.(message);
}
