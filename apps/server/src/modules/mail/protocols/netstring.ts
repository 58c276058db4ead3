/**
 * Netstrings (`<length>:<bytes>,`), the framing of Postfix's socketmap protocol. A reader takes
 * bytes as they arrive and hands back each complete string; a malformed or oversized frame is an
 * error, after which the connection is closed.
 */
export const MAX_NETSTRING_BYTES = 100_000;

export class NetstringError extends Error {}

export function encodeNetstring(text: string): Buffer {
  const body = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length}:`), body, Buffer.from(',')]);
}

export class NetstringReader {
  private buffer = Buffer.alloc(0);

  /** Adds bytes; returns the complete strings they finished. */
  push(chunk: Buffer): string[] {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const out: string[] = [];
    for (;;) {
      const colon = this.buffer.indexOf(0x3a);
      if (colon === -1) {
        if (this.buffer.length > 10) throw new NetstringError('length prefix too long');
        return out;
      }
      const prefix = this.buffer.subarray(0, colon).toString('ascii');
      if (!/^\d{1,9}$/.test(prefix)) throw new NetstringError('bad length prefix');
      const length = Number(prefix);
      if (length > MAX_NETSTRING_BYTES) throw new NetstringError('netstring too long');
      const end = colon + 1 + length;
      if (this.buffer.length < end + 1) return out;
      if (this.buffer[end] !== 0x2c) throw new NetstringError('missing trailing comma');
      out.push(this.buffer.subarray(colon + 1, end).toString('utf8'));
      this.buffer = this.buffer.subarray(end + 1);
    }
  }
}
