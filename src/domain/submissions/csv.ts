/**
 * CSV as RFC 4180 writes it (CRLF line ends; a cell holding a comma, a quote, CR or LF quoted, its quotes
 * doubled; a `;` or a tab too), with one addition for files that end up in spreadsheets: text a spreadsheet could read as the start
 * of a formula gets a leading apostrophe and is quoted (OWASP, "CSV Injection"), so `=HYPERLINK(...)` typed into
 * a form is shown, never run.
 */

/**
 * What a spreadsheet may skip before it reads a formula: every Unicode space (the no-break space and the
 * ideographic space among them), the zero-width characters and the byte order mark.
 */
const skippedBeforeFormula = '\\s\\u200B-\\u200D\\u2060\\uFEFF';

/**
 * The characters that start a formula or a command: `=`, `+`, `-`, `@` (OWASP's list), `|` (the pipe of DDE
 * payloads such as `cmd|' /C calc'!A0`, which OWASP's discussion adds), and their full-width forms, which a
 * spreadsheet may read as the ASCII ones.
 */
const formulaCharacters = '=+\\-@|\\uFF1D\\uFF0B\\uFF0D\\uFF20\\uFF5C';

/**
 * A formula character, a tab or a carriage return (OWASP lists both: a spreadsheet drops them and reads what
 * follows), or a NUL (OWASP ASVS 1.2.10 adds it), after nothing but skippable characters.
 */
const formulaStart = new RegExp(`^[${skippedBeforeFormula}]*[\\t\\r\\0${formulaCharacters}]`, 'u');

/**
 * What RFC 4180 quotes (a comma, a quote, CR, LF), and the separators spreadsheets use in other locales (`;`) or
 * for pasted text (tab): unquoted, `Ana;=HYPERLINK(...)` would be two cells there, the second a formula.
 */
const needsQuotes = /[",;\t\r\n]/;

/** Text as a spreadsheet shows it: a formula-like start is prefixed with `'`. */
export const neutralised = (text: string): string => (formulaStart.test(text) ? `'${text}` : text);

/**
 * One cell. Text is neutralised, then quoted when it needs to be; a neutralised cell is always quoted, as OWASP
 * advises, so its apostrophe and content stay one cell in every reader. Numbers and booleans are written as they
 * are: they come from the submission's JSON types, not from typed text, so `-5` is a negative number (a score,
 * a number field's answer), which an apostrophe would turn into text; the same `-5` typed into a text field is
 * text and is neutralised.
 */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  const text = neutralised(value);
  return text !== value || needsQuotes.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, with its CRLF line end. */
export const csvRow = (cells: ReadonlyArray<string | number | boolean | null | undefined>): string => `${cells.map(csvCell).join(',')}\r\n`;
