import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { TarWriter } from './tar-writer.ts';

// The archive is read back by GNU tar, another implementation than the writer's.

describe('TarWriter', () => {
  it('writes files, directories, long and non-ASCII paths and times that GNU tar reads back', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'atrium-tar-'));
    const archive = path.join(dir, 'a.tar.gz');
    const gzip = createGzip();
    const written = pipeline(gzip, createWriteStream(archive));
    const tar = new TarWriter(gzip);
    const long = `top/${'deep/'.repeat(30)}file.txt`;
    const onDisk = path.join(dir, 'source.json');
    writeFileSync(onDisk, '[1,2,3]\n');
    await tar.directory({ name: 'top' });
    await tar.file({ name: 'top/plain.txt', mtime: new Date('2026-03-02T10:00:00Z') }, 'plain\n');
    await tar.file({ name: 'top/Grüße/überall €.txt' }, Buffer.from('ü\n'));
    await tar.file({ name: long }, 'x'.repeat(513));
    await tar.fileFrom({ name: 'top/source.json' }, onDisk, statSync(onDisk).size);
    await tar.finish();
    await written;

    const out = path.join(dir, 'out');
    mkdirSync(out);
    execFileSync('tar', ['-xzf', archive, '-C', out]);
    expect(readFileSync(path.join(out, 'top/plain.txt'), 'utf8')).toBe('plain\n');
    expect(statSync(path.join(out, 'top/plain.txt')).mtime.toISOString()).toBe('2026-03-02T10:00:00.000Z');
    expect(readFileSync(path.join(out, 'top/Grüße/überall €.txt'), 'utf8')).toBe('ü\n');
    expect(readFileSync(path.join(out, long), 'utf8')).toBe('x'.repeat(513));
    expect(readFileSync(path.join(out, 'top/source.json'), 'utf8')).toBe('[1,2,3]\n');
  });
});
