// Operations per second from concurrent loops, and the CPU they cost this process per operation,
// in all and by thread (Linux /proc): shared by the identity bench's figures.
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** CPU milliseconds this process (every thread: argon2id, signing, GC) spent per operation, by figure. */
const cpuPerOperation = new Map<string, number>();
/** The same by thread (the event loop, libuv's pool: argon2id and signing, V8's GC helpers), on Linux. */
const threadCpuPerOperation = new Map<string, Map<string, number>>();

/** CPU milliseconds each kind of thread of this process has used, by name (Linux /proc; else empty). */
function threadCpuMs(): Map<string, number> {
  const byName = new Map<string, number>();
  let tids: string[] = [];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return byName;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name =
        tid === String(process.pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, fields 14 and 15 of proc_pid_stat(5), in ticks of 10 ms.
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byName;
}

/** Runs `once` from `workers` concurrent loops for `seconds`; operations per second. */
export async function rate(
  workers: Array<() => Promise<void>>,
  seconds: number,
  name?: string,
): Promise<number> {
  for (const once of workers) await once(); // warm-up
  let done = 0;
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  const cpu = process.cpuUsage();
  const threads = threadCpuMs();
  await Promise.all(
    workers.map(async (once) => {
      while (performance.now() < end) {
        await once();
        done++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  if (name) cpuPerOperation.set(name, (used.user + used.system) / 1000 / done);
  const perThread = new Map<string, number>();
  for (const [thread, ms] of threadCpuMs()) perThread.set(thread, (ms - (threads.get(thread) ?? 0)) / done);
  if (name) threadCpuPerOperation.set(name, perThread);
  return done / ((performance.now() - start) / 1000);
}

/** The CPU per named operation measured so far, with its split by thread, for the bench's last line. */
export const cpuPerOperationText = () =>
  [...cpuPerOperation]
    .map(([name, ms]) => {
      const threads = [...(threadCpuPerOperation.get(name) ?? [])].filter(([, t]) => t >= 0.01);
      const split = threads.map(([thread, t]) => `${thread} ${t.toFixed(2)}`).join(', ');
      return `${ms.toFixed(2)} ms per ${name}${split ? ` (${split})` : ''}`;
    })
    .join('; ');
