/**
 * A strict RFC 4180 reader for the tests: CRLF record ends, quoted cells with doubled quotes. It fails on a bare
 * LF or CR outside quotes and on a quote inside an unquoted cell, so a sloppy encoder cannot pass.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let index = 0;
  while (index < text.length) {
    let cell = '';
    if (text[index] === '"') {
      index++;
      for (;;) {
        if (index >= text.length) throw new Error('unterminated quoted cell');
        if (text[index] === '"') {
          if (text[index + 1] === '"') {
            cell += '"';
            index += 2;
            continue;
          }
          index++;
          break;
        }
        cell += text[index++];
      }
    } else {
      while (index < text.length && text[index] !== ',' && text[index] !== '\r') {
        if (text[index] === '"' || text[index] === '\n') throw new Error(`unexpected ${JSON.stringify(text[index])} at ${index}`);
        cell += text[index++];
      }
    }
    record.push(cell);
    if (text[index] === ',') {
      index++;
    } else if (text.startsWith('\r\n', index)) {
      records.push(record);
      record = [];
      index += 2;
    } else {
      throw new Error(`expected , or CRLF at ${index}`);
    }
  }
  if (record.length > 0) throw new Error('last record without CRLF');
  return records;
}
