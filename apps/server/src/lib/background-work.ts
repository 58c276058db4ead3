/**
 * Work a request starts and does not wait for: a password reset answers at once and looks up the
 * account and sends the code afterwards, so that neither the answer nor its timing tells whether
 * the account exists. Closing the app (SIGTERM) waits for it, so a code asked for just before a
 * restart is still sent; tests wait for it instead of sleeping.
 */
export class BackgroundWork {
  private readonly running = new Set<Promise<void>>();

  /** Starts `work`; its failure is for `work` to handle (it is caught here only so it never throws). */
  start(work: () => Promise<void>): void {
    const run = work()
      .catch(() => undefined)
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /** Resolves once nothing is running, including work started by work that was running. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
