import type { Readable } from 'node:stream';
import { IMPORT_MAX_BYTES, IMPORT_MAX_ROWS, type UserImportFormat } from '@atrium/contracts/migration';
import { CsvError, parse } from 'csv-parse';
import { AppError, badRequest } from '../../lib/errors.ts';
import { IncomingText, looksLikeUtf16WithoutBom } from '../../lib/text-encoding.ts';

/**
 * The three user files the import reads (README, "Data Migration"), recognised from their header:
 * Atrium's own export (modules/users/users-export.ts), Google Workspace's user export and
 * Microsoft 365's. Column names are compared without case, spaces and bracketed notes
 * ("First Name [Required]" is "first name").
 */

/** One data row as the file gave it, before any rule is applied. */
export interface RawUserRow {
  /** As a spreadsheet numbers it: the header is row 1. */
  row: number;
  firstName: string;
  lastName: string;
  email: string;
  groups: string[];
  /** Empty when the file has none (or Google's masked "********"). */
  password: string;
  invite: boolean;
  /** Where the invitation goes (issue 42 item 1); empty when the file has none. */
  personalEmail: string;
  /** A problem the file itself has on this row (a password hash, say). */
  problem?: string;
}

interface Columns {
  firstName: number;
  lastName: number;
  email: number;
  groups: number[];
  /** Google's Org Unit Path: its path becomes a group. */
  orgUnit: number;
  password: number;
  passwordHashFunction: number;
  invite: number;
  displayName: number;
  /** Atrium's "Personal email", Google's "Recovery Email", Microsoft's "Alternate email address". */
  personalEmail: number;
}

const normalize = (name: string) =>
  name
    .replace(/\[[^\]]*\]/g, '')
    .replace(/[\s_]+/g, ' ')
    .trim()
    .toLowerCase();

const SIGNATURES: Array<{ format: UserImportFormat; email: string[] }> = [
  { format: 'microsoft', email: ['user principal name'] },
  { format: 'google', email: ['email address'] },
  { format: 'atrium', email: ['e-mail', 'email'] },
];

export const UNRECOGNISED_HEADER =
  'The first row of the file is not a header this import knows. Use Atrium’s users export ' +
  '(First name, Last name, E-mail, Groups), Google Workspace’s user export (First Name [Required], ' +
  'Last Name [Required], Email Address [Required], …) or Microsoft 365’s (User principal name, First name, ' +
  'Last name, …).';

/** Which format a header is and where its columns are; a 400 naming what is missing otherwise. */
export function recognizeHeader(header: string[]): { format: UserImportFormat; columns: Columns } {
  const names = header.map(normalize);
  const at = (...candidates: string[]) => names.findIndex((n) => candidates.includes(n));
  const signature = SIGNATURES.find((s) => at(...s.email) >= 0);
  if (!signature) throw badRequest(UNRECOGNISED_HEADER);
  const columns: Columns = {
    email: at(...signature.email),
    firstName: at('first name', 'given name'),
    lastName: at('last name', 'surname'),
    groups: names.flatMap((n, i) => (n === 'groups' || n === 'group' ? [i] : [])),
    orgUnit: signature.format === 'google' ? at('org unit path') : -1,
    password: at('password'),
    passwordHashFunction: at('password hash function'),
    invite: at('send invitation', 'invite'),
    displayName: at('display name'),
    personalEmail: at('personal email', 'recovery email', 'alternate email address', 'alternate email'),
  };
  if (columns.firstName < 0 && columns.displayName < 0) {
    throw badRequest('The file has no “First name” column. Add it to the header row.');
  }
  if (columns.lastName < 0 && columns.displayName < 0) {
    throw badRequest('The file has no “Last name” column. Add it to the header row.');
  }
  return { format: signature.format, columns };
}

const YES = new Set(['yes', 'y', 'true', '1', 'x', 'invite', 'oui', 'ja']);

/** Several groups in one cell, separated by semicolons (as Atrium's export writes them). */
const splitGroups = (cell: string) =>
  cell
    .split(';')
    .map((g) => g.trim())
    .filter(Boolean);

export function toRawRow(columns: Columns, record: string[], row: number): RawUserRow {
  const cell = (i: number) => (i >= 0 ? (record[i] ?? '').trim() : '');
  let firstName = cell(columns.firstName);
  let lastName = cell(columns.lastName);
  // Microsoft 365 leaves first and last name empty for some accounts; the display name has both.
  if (!firstName && !lastName && columns.displayName >= 0) {
    const display = cell(columns.displayName).split(/\s+/).filter(Boolean);
    firstName = display.slice(0, -1).join(' ') || (display[0] ?? '');
    lastName = display.length > 1 ? display.at(-1)! : '';
  }
  const groups = columns.groups.flatMap((i) => splitGroups(cell(i)));
  const orgUnit = cell(columns.orgUnit).replace(/^\/+|\/+$/g, '');
  if (orgUnit) groups.push(orgUnit);
  let password = cell(columns.password);
  // Google's export masks passwords: nothing to import.
  if (/^\*+$/.test(password)) password = '';
  const raw: RawUserRow = {
    row,
    firstName,
    lastName,
    email: cell(columns.email).toLowerCase(),
    groups,
    password,
    invite: YES.has(cell(columns.invite).toLowerCase()),
    personalEmail: cell(columns.personalEmail).toLowerCase(),
  };
  if (password && cell(columns.passwordHashFunction)) {
    raw.problem = 'The password is a hash, which cannot be imported. Leave it empty or send an invitation';
  }
  return raw;
}

/**
 * Comma or semicolon: whichever the header line has more of, outside quotes; a tab when the line
 * has tabs and no comma (Excel's "Unicode text" is tab-separated).
 */
export function delimiterOf(firstLine: string): ',' | ';' | '\t' {
  let commas = 0;
  let semicolons = 0;
  let tabs = 0;
  let quoted = false;
  for (const ch of firstLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semicolons++;
    else if (!quoted && ch === '\t') tabs++;
  }
  if (commas === 0 && tabs > semicolons) return '\t';
  return semicolons > commas ? ';' : ',';
}

/** A spreadsheet saved as a workbook, an archive, a PDF…: the first bytes say so. */
const BINARY_SIGNATURES: Array<[string, Buffer]> = [
  ['an Excel workbook or another zip archive', Buffer.from([0x50, 0x4b, 0x03, 0x04])],
  ['an Excel 97–2003 workbook', Buffer.from([0xd0, 0xcf, 0x11, 0xe0])],
  ['a PDF document', Buffer.from('%PDF-')],
  ['a gzip archive', Buffer.from([0x1f, 0x8b])],
];

const SAVE_AS_CSV = 'Save it as “CSV UTF-8 (comma delimited)” and send that file.';
/** How a file that is not CSV at all is refused: what it is, then how to make the CSV. */
const notCsv = (what: string, fix = SAVE_AS_CSV) => `This is not a CSV file: ${what}. ${fix}`;

export const NOT_TEXT = notCsv('it holds binary data, not text');
export const JSON_NOT_CSV = notCsv(
  'it holds JSON',
  'Send a CSV file instead: a header row (such as First name, Last name, E-mail), then one row per user.',
);
export const UTF16_WITHOUT_BOM =
  'The file is UTF-16 text without the byte-order mark that says which byte comes first, so it cannot be ' +
  `read reliably. ${SAVE_AS_CSV}`;

/** Control characters no text file holds many of (tab, line feed, form feed, carriage return excepted). */
function controlBytes(head: Buffer): number {
  let count = 0;
  for (const b of head)
    if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d) || b === 0x7f) count++;
  return count;
}

/**
 * A 400 when the file's first bytes are not CSV text: a known binary format, a NUL before the
 * first line ends (UTF-16, whose characters hold NULs, passes when its byte-order mark says so),
 * or control characters no text holds so many of. One stray control character is its row's error.
 */
function refuseBinary(head: Buffer, utf16: boolean): void {
  for (const [name, signature] of BINARY_SIGNATURES) {
    if (head.subarray(0, signature.length).equals(signature)) throw badRequest(notCsv(`it is ${name}`));
  }
  if (utf16) return;
  const newline = head.findIndex((b) => b === 0x0a || b === 0x0d);
  if (head.subarray(0, newline < 0 ? head.length : newline).includes(0)) {
    throw badRequest(looksLikeUtf16WithoutBom(head) ? UTF16_WITHOUT_BOM : NOT_TEXT);
  }
  const control = controlBytes(head);
  if (control >= 8 && control > head.length / 100) throw badRequest(NOT_TEXT);
}

/** A JSON object or array where the header row should be (the first thing in the text). */
export function looksLikeJson(head: string): boolean {
  return /^\uFEFF?\s*(\{\s*("|\})|\[\s*[[{"\d\-\]]|\[\s*(true|false|null)\b)/.test(head);
}

/**
 * A parser's complaint as a person reads it, naming the row (as a spreadsheet numbers it: the header
 * is row 1; the parser counts the records it has given so far, and empty lines are no rows here
 * either) and the column when the parser knows them.
 */
function csvProblem(error: CsvError, header: string[] | undefined): AppError {
  const info = error as CsvError & { records?: number; column?: number | string; lines?: number };
  const row = (info.records ?? 0) + 1;
  const column =
    typeof info.column === 'number' && header?.[info.column] !== undefined
      ? ` (column “${header[info.column]!.trim()}”)`
      : '';
  let what: string;
  switch (error.code) {
    case 'INVALID_OPENING_QUOTE':
      // The example fits this case alone: a name such as O"Brien in an unquoted field.
      what =
        `a quote (") inside a field that does not start with one${column}. ` +
        'Put the whole field in quotes and double the quote inside it, as in "O""Brien"';
      break;
    case 'CSV_QUOTE_NOT_CLOSED':
      what = 'a quoted field starts here and its closing quote never comes';
      break;
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      what = `characters follow the closing quote of a field${column}. Put the whole field in quotes and double any quote inside it`;
      break;
    default:
      what = error.message.replace(/^[^:]*: /, '');
  }
  return badRequest(`The file is not valid CSV: row ${row}: ${what}.`);
}

export const FILE_TOO_LARGE =
  `The file is larger than ${IMPORT_MAX_BYTES / 1024 / 1024} MB, the most one import reads ` +
  `(with at most ${IMPORT_MAX_ROWS.toLocaleString('en')} rows). Split it into several files.`;
export const TOO_MANY_ROWS = `The file has more than ${IMPORT_MAX_ROWS.toLocaleString('en')} rows. Split it into several files.`;

/**
 * Reads an uploaded CSV as it arrives: UTF-8 with or without BOM, UTF-16 with BOM or Windows-1252
 * (lib/text-encoding.ts), comma, semicolon or tab separated, quoted fields. Yields the format
 * first, then the data rows one by one, so a file of 150,000 rows never sits in memory whole. Bad
 * files are 400s naming the problem; bytes the file's encoding cannot read are errors of their rows.
 */
export async function* readUserCsv(
  input: Readable,
): AsyncGenerator<{ format: UserImportFormat } | RawUserRow> {
  let bytes = 0;
  // The parser is given text: the bytes are decoded here, in the encoding their start tells.
  const text = new IncomingText();
  let head = '';
  let ended = false;
  const chunks: Buffer[] = [];
  const iterator = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  // Enough of the file to see its first line and so its delimiter.
  for (;;) {
    const next = await iterator.next();
    if (next.done) {
      head += text.end();
      ended = true;
      break;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    bytes += chunk.length;
    chunks.push(chunk);
    head += text.decode(chunk);
    if (/[\r\n]/.test(head) || bytes > 64 * 1024) break;
  }
  if (bytes > IMPORT_MAX_BYTES) throw new AppError(413, 'file_too_large', FILE_TOO_LARGE);
  const utf16 = text.encoding === 'utf-16le' || text.encoding === 'utf-16be';
  refuseBinary(Buffer.concat(chunks).subarray(0, 64 * 1024), utf16);
  if (head.trim() === '') throw badRequest('The file is empty.');
  if (looksLikeJson(head)) throw badRequest(JSON_NOT_CSV);
  const delimiter = delimiterOf(head.split(/\r?\n/, 1)[0]!);

  const parser = parse({
    bom: true,
    delimiter,
    relax_column_count: true,
    skip_empty_lines: true,
    trim: false,
  });
  const feed = async () => {
    try {
      if (!parser.write(head)) await onceDrained(parser);
      for (;;) {
        if (ended) break;
        if (parser.destroyed) {
          // The reader stopped (a bad row, say): the rest of the upload is not read.
          await iterator.return?.();
          return;
        }
        const next = await iterator.next();
        if (next.done) break;
        const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
        bytes += chunk.length;
        if (bytes > IMPORT_MAX_BYTES) {
          parser.destroy(new AppError(413, 'file_too_large', FILE_TOO_LARGE));
          return;
        }
        if (parser.destroyed) continue;
        const decoded = text.decode(chunk);
        if (decoded && !parser.write(decoded)) await onceDrained(parser);
      }
      if (parser.destroyed) return;
      const rest = ended ? '' : text.end();
      if (rest) parser.write(rest);
      parser.end();
    } catch (error) {
      parser.destroy(error as Error);
    }
  };
  void feed();

  let columns: Columns | undefined;
  let header: string[] | undefined;
  let index = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!columns) {
        header = record;
        const recognized = recognizeHeader(record);
        columns = recognized.columns;
        yield { format: recognized.format };
        continue;
      }
      index++;
      if (index > IMPORT_MAX_ROWS) throw badRequest(TOO_MANY_ROWS);
      // Row 1 is the header, so the first data record is row 2.
      yield toRawRow(columns, record, index + 1);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    // Every parser error, whatever its code says (csv-parse 6's INVALID_OPENING_QUOTE has no CSV_ prefix).
    if (error instanceof CsvError) throw csvProblem(error, header);
    throw error;
  } finally {
    if (!parser.destroyed) parser.destroy();
  }
  if (!columns) throw badRequest('The file is empty.');
}

function onceDrained(parser: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      parser.off('drain', done);
      parser.off('close', done);
      resolve();
    };
    parser.on('drain', done);
    parser.on('close', done);
  });
}
