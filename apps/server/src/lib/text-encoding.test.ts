import { describe, expect, it } from 'vitest';
import { IncomingText, looksLikeUtf16WithoutBom, UNDECODED } from './text-encoding.ts';

const NAME = 'José Müller “quoted” €5';

/** Decodes the bytes in chunks of `size`, as an upload arrives. */
function read(bytes: Uint8Array, size = bytes.length) {
  const text = new IncomingText();
  let out = '';
  for (let at = 0; at < bytes.length; at += size) out += text.decode(bytes.subarray(at, at + size));
  out += text.end();
  return { text: out, encoding: text.encoding };
}

const utf16 = (value: string, endian: 'le' | 'be') => {
  const le = Buffer.from(value, 'utf16le');
  return endian === 'le' ? le : Buffer.from(le).swap16();
};

/** Windows-1252 as Excel writes it: one byte a character (é E9, ü FC, “ 93, ” 94, € 80). */
const windows1252 = (value: string) => {
  const bytes: Record<string, number> = { é: 0xe9, ü: 0xfc, '“': 0x93, '”': 0x94, '€': 0x80 };
  return Buffer.from([...value].map((c) => bytes[c] ?? c.charCodeAt(0)));
};

describe('uploaded text in the encodings spreadsheets write', () => {
  it('reads UTF-8 with and without its byte-order mark', () => {
    expect(read(Buffer.from(NAME))).toEqual({ text: NAME, encoding: 'utf-8' });
    expect(read(Buffer.from(`\uFEFF${NAME}`))).toEqual({ text: NAME, encoding: 'utf-8' });
  });

  it('reads UTF-16 LE and BE by their byte-order marks', () => {
    expect(read(Buffer.concat([Buffer.from([0xff, 0xfe]), utf16(NAME, 'le')]))).toEqual({
      text: NAME,
      encoding: 'utf-16le',
    });
    expect(read(Buffer.concat([Buffer.from([0xfe, 0xff]), utf16(NAME, 'be')]))).toEqual({
      text: NAME,
      encoding: 'utf-16be',
    });
  });

  it('reads bytes that are not UTF-8 as Windows-1252', () => {
    expect(read(windows1252(NAME))).toEqual({ text: NAME, encoding: 'windows-1252' });
  });

  it('is the same whatever the chunks, a character cut between two included', () => {
    const files = [
      Buffer.from(`\uFEFF${NAME}`),
      Buffer.concat([Buffer.from([0xff, 0xfe]), utf16(NAME, 'le')]),
      Buffer.concat([Buffer.from([0xfe, 0xff]), utf16(NAME, 'be')]),
      windows1252(NAME),
      Buffer.from(NAME),
    ];
    for (const file of files) {
      for (const size of [1, 2, 3, 5]) expect(read(file, size).text).toBe(NAME);
    }
  });

  it('decides at the first byte past ASCII, however far into the file', () => {
    const ascii = 'First name,Last name\n'.repeat(1000);
    const file = Buffer.concat([Buffer.from(ascii), windows1252(NAME)]);
    expect(read(file, 4096)).toEqual({ text: ascii + NAME, encoding: 'windows-1252' });
    expect(read(Buffer.from(ascii))).toEqual({ text: ascii, encoding: undefined });
  });

  it('turns what fits no encoding into U+FFFD', () => {
    // Undefined in Windows-1252.
    for (const byte of [0x81, 0x8d, 0x8f, 0x90, 0x9d]) {
      expect(read(Buffer.from([0x4a, byte, 0xe9])).text).toBe(`J${UNDECODED}é`);
    }
    // UTF-8 that breaks off later: the file was UTF-8 up to there.
    const mixed = Buffer.concat([Buffer.from('José\n'), Buffer.from([0x4d, 0xfc, 0x6c])]);
    expect(read(mixed)).toEqual({ text: `José\nM${UNDECODED}l`, encoding: 'utf-8' });
    // Cut off at the end.
    expect(read(Buffer.from([0xef, 0xbb, 0xbf, 0x4a, 0xc3])).text).toBe(`J${UNDECODED}`);
  });

  it('reads tiny files', () => {
    expect(read(Buffer.from('a'))).toEqual({ text: 'a', encoding: undefined });
    expect(read(Buffer.from([0xe9]))).toEqual({ text: 'é', encoding: 'windows-1252' });
    expect(read(Buffer.alloc(0)).text).toBe('');
  });

  it('tells UTF-16 without its byte-order mark by its NULs', () => {
    expect(looksLikeUtf16WithoutBom(utf16('First name\tLast name\r\n', 'le'))).toBe(true);
    expect(looksLikeUtf16WithoutBom(utf16('First name\tLast name\r\n', 'be'))).toBe(true);
    expect(looksLikeUtf16WithoutBom(Buffer.concat([Buffer.from([0xff, 0xfe]), utf16('First', 'le')]))).toBe(
      false,
    );
    expect(looksLikeUtf16WithoutBom(Buffer.from('First name,Last name\u0000\n'))).toBe(false);
  });
});
