import { describe, expect, it } from 'vitest';
import { BackgroundWork } from './background-work.ts';

describe('BackgroundWork', () => {
  it('is idle only once all work is done, work started by work and failed work included', async () => {
    const background = new BackgroundWork();
    const done: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    background.start(async () => {
      await gate;
      done.push('first');
      background.start(async () => {
        await new Promise((resolve) => setImmediate(resolve));
        done.push('second');
      });
    });
    background.start(async () => {
      throw new Error('a failure is the work’s own to report');
    });
    const idle = background.idle().then(() => done.push('idle'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toEqual([]);
    release();
    await idle;
    expect(done).toEqual(['first', 'second', 'idle']);
  });

  it('is idle at once with nothing running', async () => {
    await expect(new BackgroundWork().idle()).resolves.toBeUndefined();
  });
});
