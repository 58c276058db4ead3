import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostLayout } from '../../src/operator/host-layout.ts';
import { atriumUnit } from '../../src/operator/install/service-files.ts';

// systemd's own rating of the unit install writes (issue 38): offline, so it needs no systemd
// as PID 1, only systemd-analyze (systemd 252 on Debian 12, here and on CI).

const dir = mkdtempSync(path.join(tmpdir(), 'atrium-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function exposure(mail: boolean): { level: number; output: string } {
  const unit = path.join(dir, `atrium-${mail ? 'mail' : 'nomail'}.service`);
  writeFileSync(unit, atriumUnit(hostLayout('/'), { mail }));
  const run = spawnSync('systemd-analyze', ['security', '--offline=true', '--no-pager', unit], {
    encoding: 'utf8',
  });
  const output = `${run.stdout}${run.stderr}`;
  const match = /Overall exposure level for \S+: (\d+(?:\.\d+)?)/.exec(output);
  if (!match) throw new Error(`systemd-analyze security gave no exposure level:\n${output}`);
  return { level: Number(match[1]), output };
}

describe('atrium.service sandbox', () => {
  it.each([true, false])('rates at most 2.0 in systemd-analyze security (mail %s)', (mail) => {
    const { level, output } = exposure(mail);
    expect(level, output).toBeLessThanOrEqual(2.0);
  });

  it("filters system calls without denying what V8's JIT needs", () => {
    const unit = atriumUnit(hostLayout('/'), { mail: true });
    expect(unit).toContain('SystemCallFilter=@system-service');
    expect(unit).toContain('ProtectProc=invisible');
    // W^X would stop V8 and PGlite's WebAssembly from writing their compiled code.
    expect(unit).not.toMatch(/MemoryDenyWriteExecute=(yes|true)/);
  });
});
