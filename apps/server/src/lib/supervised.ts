/**
 * Whether this server runs under Atrium's supervisor (supervisor/supervisor.ts), which starts a new
 * release's server beside the serving one: both then share their TCP ports (SO_REUSEPORT) until
 * the old one has drained, and the new one says when it is ready.
 */
export const supervised = process.env.ATRIUM_SUPERVISED === '1';

/**
 * On the embedded database the supervisor starts the next server before stopping the serving one,
 * as a standby: it loads its modules and reads its settings, says so, and opens DATA_DIR only when
 * told to go (after the old one has closed it). The gap is then the database's opening, not Node's
 * start and module loading (issue 41).
 */
export const standby = supervised && process.env.ATRIUM_STANDBY === '1';

/** The messages a supervised server sends its supervisor over the IPC channel. */
export type ServerMessage = { type: 'ready' } | { type: 'standing-by' };

/** What the supervisor tells a standby server. */
export type SupervisorMessage = { type: 'go' };

export function tellSupervisor(message: ServerMessage): void {
  if (supervised) process.send?.(message);
}

/** A standby server: says it is loaded, then waits for the supervisor's go. */
export function untilGo(): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (message: SupervisorMessage) => {
      if (message?.type !== 'go') return;
      process.off('message', onMessage);
      resolve();
    };
    process.on('message', onMessage);
    // A supervisor that is gone never says go.
    process.once('disconnect', () => process.exit(1));
    tellSupervisor({ type: 'standing-by' });
  });
}
