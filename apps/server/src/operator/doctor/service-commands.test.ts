import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceLog } from './service-commands.ts';

describe("a fix's look at a service's log", () => {
  it("points at Atrium's own log file below the host's root, where the init script writes it", () => {
    const root = mkdtempSync(path.join(tmpdir(), 'atrium-root-'));
    expect(serviceLog(root, 'atrium')).toBe(`tail -n 50 ${path.join(root, 'var/log/atrium/atrium.log')}`);
  });
});
