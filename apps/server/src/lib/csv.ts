/**
 * CSV (RFC 4180) that spreadsheets open as data, never as formulas: a cell starting with
 * = + - @ or a tab / carriage return would be evaluated by Excel, LibreOffice and Google Sheets
 * (CSV injection), so such a cell gets a leading apostrophe, as OWASP recommends. Every cell is
 * quoted, quotes doubled, lines end with CRLF.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '""';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return `"${text.replaceAll('"', '""')}"`;
}

export function csvRow(values: (string | number | null | undefined)[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** The byte-order mark makes Excel read the file as UTF-8 (names with accents stay intact). */
export const CSV_BOM = '\uFEFF';
