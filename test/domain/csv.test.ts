import { describe, expect, it } from 'vitest';
import { csvCell, csvRow, neutralised } from '../../src/domain/submissions/csv.js';
import { parseCsv } from '../support/csv.js';

describe('csvCell', () => {
  it('when text is plain, then it is written as is', () => {
    expect(csvCell('Ana Pereira')).toBe('Ana Pereira');
    expect(csvCell('Zoë 👋 Ünal')).toBe('Zoë 👋 Ünal');
  });

  it('when text holds a comma, a quote, CR or LF, then it is quoted with its quotes doubled', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell('line\r\nbreak')).toBe('"line\r\nbreak"');
    expect(csvCell('"')).toBe('""""');
  });

  // OWASP's list, NUL (ASVS 1.2.10), the pipe, and the full-width forms of each (U+FF1D, U+FF0B, U+FF0D, U+FF20, U+FF5C).
  const formulaStarts = ['=', '+', '-', '@', '\t', '\r', '\0', '|', '＝', '＋', '－', '＠', '｜'];

  it.each(formulaStarts)('when text starts with %j, then it gets a leading apostrophe and is quoted', (start) => {
    expect(neutralised(`${start}1+1`)).toBe(`'${start}1+1`);
    expect(parseCsv(`${csvCell(`${start}1+1`)}\r\n`)).toEqual([[`'${start}1+1`]]);
    expect(csvCell(`${start}1+1`).startsWith(`"'`)).toBe(true);
  });

  // What a spreadsheet may skip before a formula: spaces of every kind, zero-width characters, a byte order mark.
  const skipped = [' ', '   ', '\u00A0', '\u2007', '\u202F', '\u3000', '\u2003', '\u200B', '\uFEFF', '\n', ' \u00A0 '];

  it.each(skipped.flatMap((space) => formulaStarts.map((start) => [space, start] as const)))(
    'when %j comes before %j, then the cell is neutralised all the same',
    (space, start) => {
      const text = `${space}${start}SUM(A1:A9)`;
      expect(neutralised(text)).toBe(`'${text}`);
      expect(parseCsv(`${csvCell(text)}\r\n`)).toEqual([[`'${text}`]]);
    },
  );

  it("when text holds another locale's separator (; or tab), then it is quoted, so no cell starts inside it", () => {
    expect(csvCell('Ana;=HYPERLINK("x")')).toBe('"Ana;=HYPERLINK(""x"")"');
    expect(csvCell('Ana\t=1+1')).toBe('"Ana\t=1+1"');
    expect(parseCsv(`${csvCell('a;b')},${csvCell('c\td')}\r\n`)).toEqual([['a;b', 'c\td']]);
  });

  it('when neutralised text also needs quotes, then the apostrophe is inside them', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('\rcmd')).toBe(`"'\rcmd"`);
    expect(csvCell('\u00A0=1,2')).toBe(`"'\u00A0=1,2"`);
  });

  it('when a formula character is not the first visible one, then nothing is added', () => {
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell(" '=x")).toBe(" '=x");
    expect(csvCell(' a-b')).toBe(' a-b');
    expect(csvCell('1-2')).toBe('1-2');
    expect(csvCell('x|y')).toBe('x|y');
    expect(csvCell('   ')).toBe('   ');
    expect(csvCell('')).toBe('');
  });

  it('when a number-like text is typed into a text field, then it is text and is neutralised', () => {
    expect(csvCell('-5')).toBe(`"'-5"`);
    expect(csvCell('+49 30 1234567')).toBe(`"'+49 30 1234567"`);
  });

  it('when the value is a number, a boolean or missing, then it is written plainly (a negative score or number answer stays a number)', () => {
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(-0.5)).toBe('-0.5');
    expect(csvCell(2.5)).toBe('2.5');
    expect(csvCell(true)).toBe('true');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
  });
});

describe('csvRow', () => {
  it('when cells are joined, then the record ends in CRLF and reads back unchanged', () => {
    const cells = ['sub_1', 'a,b', 'say "hi"', 'multi\nline', '', 'ü'];
    const row = csvRow(cells);
    expect(row.endsWith('\r\n')).toBe(true);
    expect(parseCsv(row)).toEqual([cells]);
  });
});
