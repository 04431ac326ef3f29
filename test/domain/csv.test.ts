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

  it.each(['=', '+', '-', '@', '\t', '\r'])('when text starts with %j, then it gets a leading apostrophe', (start) => {
    expect(neutralised(`${start}1+1`)).toBe(`'${start}1+1`);
  });

  it('when neutralised text also needs quotes, then the apostrophe is inside them', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('\rcmd')).toBe(`"'\rcmd"`);
  });

  it('when a formula character is not the first, then nothing is added', () => {
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell(" '=x")).toBe(" '=x");
  });

  it('when the value is a number, a boolean or missing, then it is written plainly (a negative score stays a number)', () => {
    expect(csvCell(-5)).toBe('-5');
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
