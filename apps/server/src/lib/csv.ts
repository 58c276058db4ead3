/**
 * CSV (RFC 4180) that spreadsheets open as data, never as formulas: a cell starting with
 * = + - @ or a tab / carriage return would be evaluated by Excel, LibreOffice and Google Sheets
 * (CSV injection), so such a cell gets a leading apostrophe, as OWASP recommends. The signs are
 * judged after compatibility normalisation (NFKC), so the full-width ＝ ＋ － ＠ that a Japanese
 * or Chinese input method types, and the small ﹦ ﹢ ﹣ ﹫, count as the ASCII ones: spreadsheets
 * in those locales read them as a formula too (issue 30 item 7). Every cell is quoted, quotes
 * doubled, lines end with CRLF.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export const startsLikeFormula = (text: string): boolean =>
  FORMULA_START.test(text) || FORMULA_START.test(text.slice(0, 8).normalize('NFKC'));

export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '""';
  let text = String(value);
  if (startsLikeFormula(text)) text = `'${text}`;
  return `"${text.replaceAll('"', '""')}"`;
}

export function csvRow(values: (string | number | null | undefined)[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** The byte-order mark makes Excel read the file as UTF-8 (names with accents stay intact). */
export const CSV_BOM = '\uFEFF';
