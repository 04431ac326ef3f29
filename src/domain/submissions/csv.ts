/**
 * CSV as RFC 4180 writes it (CRLF line ends; a cell holding a comma, a quote, CR or LF quoted, its quotes
 * doubled), with one addition for files that end up in spreadsheets: text starting with a character a
 * spreadsheet reads as the start of a formula gets a leading apostrophe (OWASP, "CSV Injection"), so
 * `=HYPERLINK(...)` typed into a form is shown, never run.
 */

/** `=`, `+`, `-`, `@`, tab and carriage return start a formula or are dropped before one is parsed. */
const formulaStart = /^[=+\-@\t\r]/;

/** Text as a spreadsheet shows it: a formula-like start is prefixed with `'`. */
export const neutralised = (text: string): string => (formulaStart.test(text) ? `'${text}` : text);

/** One cell: text is neutralised, then quoted when it needs to be; numbers and booleans are written as they are. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  const text = neutralised(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, with its CRLF line end. */
export const csvRow = (cells: ReadonlyArray<string | number | boolean | null | undefined>): string => `${cells.map(csvCell).join(',')}\r\n`;
