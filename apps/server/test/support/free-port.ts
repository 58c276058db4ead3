import { createServer } from 'node:net';

/**
 * Ports are handed out below the kernel's ephemeral range (32768–60999 on Debian), which every
 * outgoing connection and every `listen(0)` of every process draws from: a port picked there and
 * bound seconds later (install writes it, then Dovecot starts) could meanwhile be another test's
 * local port, and the daemon exits with "Address already in use". Each Vitest worker takes its
 * own slice, so two test files running at once never pick the same port.
 */
const FIRST = 20_000;
const SLICE = 1_000;
const SLICES = 12;

const worker = Number(process.env.VITEST_POOL_ID ?? process.env.TEST_PARALLEL_INDEX ?? 0);
const sliceStart = FIRST + (worker % SLICES) * SLICE;
let next = Math.floor(Math.random() * SLICE);

/** Whether nothing on this host holds `port` on loopback now. */
const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A loopback port nothing listens on, none of the last thousand this process handed out. */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < SLICE; tried++) {
    const port = sliceStart + (next++ % SLICE);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${sliceStart}–${sliceStart + SLICE - 1}`);
}
