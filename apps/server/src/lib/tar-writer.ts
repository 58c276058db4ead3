import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';

/**
 * A streaming tar (POSIX ustar with pax headers) writer: entries go out one by one, each with its
 * size known first, so an archive of many mailboxes never sits in memory or in a staging copy on
 * disk. Long or non-ASCII paths get a pax `path` record, which GNU tar, bsdtar, 7-Zip and the
 * macOS Archive Utility read. Writes wait for `drain`, so a slow disk holds the producer back.
 */

const BLOCK = 512;
/** ustar's size field: 11 octal digits. */
const MAX_SIZE = 0o77777777777;

export interface TarEntry {
  /** Path inside the archive, `/`-separated; a directory's ends with `/`. */
  name: string;
  mtime?: Date;
  mode?: number;
}

export class TarWriter {
  private written = 0;
  private readonly out: Writable;

  constructor(out: Writable) {
    this.out = out;
  }

  /** Bytes written so far (before compression). */
  get bytes(): number {
    return this.written;
  }

  async directory(entry: TarEntry): Promise<void> {
    const name = entry.name.endsWith('/') ? entry.name : `${entry.name}/`;
    await this.header({ ...entry, name, mode: entry.mode ?? 0o755 }, 0, '5');
  }

  async file(entry: TarEntry, body: Buffer | string): Promise<void> {
    const data = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    await this.header(entry, data.length, '0');
    await this.write(data);
    await this.pad(data.length);
  }

  /** A file already on disk (a kind's JSON written page by page), streamed in. */
  async fileFrom(entry: TarEntry, filePath: string, size: number): Promise<void> {
    await this.header(entry, size, '0');
    let read = 0;
    for await (const chunk of createReadStream(filePath) as AsyncIterable<Buffer>) {
      read += chunk.length;
      await this.write(chunk);
    }
    if (read !== size) throw new Error(`${filePath} changed while it was archived`);
    await this.pad(size);
  }

  /** The two empty blocks that end an archive; then ends the output stream. */
  async finish(): Promise<void> {
    await this.write(Buffer.alloc(BLOCK * 2));
    this.out.end();
  }

  private async header(entry: TarEntry, size: number, type: '0' | '5'): Promise<void> {
    if (size > MAX_SIZE) throw new Error(`${entry.name} is larger than a tar entry can be`);
    const mtime = Math.floor((entry.mtime ?? new Date()).getTime() / 1000);
    // Plain ASCII names that fit stay plain; anything else gets a pax record first.
    if (Buffer.byteLength(entry.name) > 100 || /[^\x20-\x7e]/.test(entry.name)) {
      const record = paxRecord('path', entry.name);
      await this.write(ustarHeader('PaxHeader', record.length, mtime, 0o644, 'x'));
      await this.write(record);
      await this.pad(record.length);
    }
    const shortName = asciiTail(entry.name, 100);
    await this.write(ustarHeader(shortName, size, mtime, entry.mode ?? 0o644, type));
  }

  private async pad(size: number): Promise<void> {
    const rest = size % BLOCK;
    if (rest) await this.write(Buffer.alloc(BLOCK - rest));
  }

  private async write(chunk: Buffer): Promise<void> {
    this.written += chunk.length;
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }
}

/** `"<length> key=value\n"`, where the length counts its own digits. */
function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  const bytes = Buffer.byteLength(body);
  let length = bytes + String(bytes).length;
  if (String(length).length !== String(bytes).length) length = bytes + String(length).length;
  return Buffer.from(`${length}${body}`, 'utf8');
}

/** The name field for readers without pax: the last characters of the path, ASCII only. */
function asciiTail(name: string, max: number): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_');
  return ascii.length <= max ? ascii : ascii.slice(ascii.length - max);
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function ustarHeader(name: string, size: number, mtime: number, mode: number, type: string): Buffer {
  const header = Buffer.alloc(BLOCK);
  header.write(name, 0, 100, 'ascii');
  header.write(octal(mode, 8), 100, 8, 'ascii');
  header.write(octal(0, 8), 108, 8, 'ascii');
  header.write(octal(0, 8), 116, 8, 'ascii');
  header.write(octal(size, 12), 124, 12, 'ascii');
  header.write(octal(mtime, 12), 136, 12, 'ascii');
  header.write('        ', 148, 8, 'ascii');
  header.write(type, 156, 1, 'ascii');
  header.write('ustar\x0000', 257, 8, 'ascii');
  header.write('atrium', 265, 32, 'ascii');
  header.write('atrium', 297, 32, 'ascii');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  return header;
}
