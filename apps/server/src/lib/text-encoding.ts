import { isAscii } from 'node:buffer';
import { TextDecoder } from 'node:util';

/**
 * Uploaded text in the encodings spreadsheets write (issue 42 item 8): UTF-8 with or without a
 * byte-order mark, UTF-16 with its mark (LE and BE: Excel's "Unicode text") and Windows-1252 (what
 * Excel on Windows writes as "CSV" in Western locales). The mark decides when there is one;
 * otherwise the text is ASCII until its first other byte, and the bytes from there tell UTF-8
 * (valid) from Windows-1252 (not valid UTF-8). Read as it arrives: one chunk at a time.
 *
 * Bytes that fit none of these (UTF-8 that breaks off later in the file, the five bytes
 * Windows-1252 leaves undefined) come out as U+FFFD, so the rows holding them can be named.
 */

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

/** What a byte that is not text in the file's encoding becomes. */
export const UNDECODED = '\uFFFD';

export const hasUndecodedCharacter = (value: string): boolean => value.includes(UNDECODED);

const BOMS: Array<[TextEncodingName, number[]]> = [
  ['utf-8', [0xef, 0xbb, 0xbf]],
  ['utf-16le', [0xff, 0xfe]],
  ['utf-16be', [0xfe, 0xff]],
];

/** The encoding a byte-order mark at the start names, and the mark's length. */
export function encodingOfBom(bytes: Uint8Array): { encoding: TextEncodingName; length: number } | undefined {
  for (const [encoding, bom] of BOMS) {
    if (bom.every((b, i) => bytes[i] === b)) return { encoding, length: bom.length };
  }
  return undefined;
}

/**
 * UTF-16 without its mark: NULs in every other byte of the start (ASCII text in two bytes a
 * character). Not read: which half is which cannot be told reliably.
 */
export function looksLikeUtf16WithoutBom(bytes: Uint8Array): boolean {
  if (encodingOfBom(bytes) || bytes.length < 4) return false;
  const sample = bytes.subarray(0, 256);
  let evenNuls = 0;
  let oddNuls = 0;
  sample.forEach((b, i) => {
    if (b === 0) {
      if (i % 2 === 0) evenNuls++;
      else oddNuls++;
    }
  });
  const pairs = Math.floor(sample.length / 2);
  return Math.max(evenNuls, oddNuls) >= pairs * 0.4 && Math.min(evenNuls, oddNuls) <= pairs * 0.05;
}

/** The bytes 0x81, 0x8D, 0x8F, 0x90 and 0x9D, which Windows-1252 leaves undefined (decoded as C1 controls). */
const UNDEFINED_IN_1252 = /[\u0081\u008D\u008F\u0090\u009D]/g;

const windows1252 = new TextDecoder('windows-1252');
const decode1252 = (bytes: Uint8Array) => windows1252.decode(bytes).replace(UNDEFINED_IN_1252, UNDECODED);

const fatalUtf8 = () => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * How the bytes from the first one past ASCII read: as UTF-8 when they are valid UTF-8, and when
 * their first character is (a file that turns to another encoding later: its rows from there are
 * named, never silently misread); as Windows-1252 otherwise; undecided when they are only the
 * start of a character (the next chunk has the rest). At the end of the file, a cut character is
 * Windows-1252.
 */
function judge(rest: Uint8Array, final: boolean): TextEncodingName | undefined {
  try {
    const text = fatalUtf8().decode(rest, { stream: !final });
    return text === '' ? undefined : 'utf-8';
  } catch {
    const first = new TextDecoder('utf-8').decode(rest.subarray(0, 4));
    return first.startsWith(UNDECODED) ? 'windows-1252' : 'utf-8';
  }
}

/** Decodes a file chunk by chunk, telling its encoding from its first bytes. */
export class IncomingText {
  #encoding: TextEncodingName | undefined;
  #decoder: TextDecoder | undefined;
  /** Bytes not decoded yet: the first ones until a byte-order mark can be seen, or a cut first character. */
  #pending: Uint8Array = new Uint8Array(0);
  #started = false;

  /** The encoding, once told: undefined while the text has been ASCII (the same in all but UTF-16). */
  get encoding(): TextEncodingName | undefined {
    return this.#encoding;
  }

  /** The text of the next chunk (a character cut by the chunk's end comes with the next one). */
  decode(chunk: Uint8Array): string {
    return this.#read(chunk, false);
  }

  /** The end of the file: what was held back, a last incomplete character as U+FFFD. */
  end(): string {
    return this.#read(new Uint8Array(0), true) + (this.#decoder?.decode() ?? '');
  }

  #read(chunk: Uint8Array, final: boolean): string {
    let bytes = concat(this.#pending, chunk);
    this.#pending = new Uint8Array(0);
    if (!this.#started) {
      if (bytes.length < 3 && !final) {
        this.#pending = bytes;
        return '';
      }
      this.#started = true;
      const bom = encodingOfBom(bytes);
      if (bom) {
        this.#use(bom.encoding);
        bytes = bytes.subarray(bom.length);
      }
    }
    if (this.#encoding) return this.#text(bytes);
    if (isAscii(bytes)) return asciiText(bytes);
    const firstOther = bytes.findIndex((b) => b >= 0x80);
    const rest = bytes.subarray(firstOther);
    const encoding = judge(rest, final);
    if (!encoding) {
      this.#pending = rest;
      return asciiText(bytes.subarray(0, firstOther));
    }
    this.#use(encoding);
    return asciiText(bytes.subarray(0, firstOther)) + this.#text(rest);
  }

  #use(encoding: TextEncodingName): void {
    this.#encoding = encoding;
    // Windows-1252 has one byte a character: nothing to carry from one chunk to the next.
    if (encoding !== 'windows-1252') this.#decoder = new TextDecoder(encoding, { ignoreBOM: true });
  }

  #text(bytes: Uint8Array): string {
    if (this.#encoding === 'windows-1252') return decode1252(bytes);
    return this.#decoder!.decode(bytes, { stream: true });
  }
}

const asciiText = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
