import { inflateSync, crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, pngFile } from '../src/png.js';

describe('PNG files written in code', () => {
  it('when bytes are checked, then the CRC-32 is the standard one', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32(Buffer.alloc(0))).toBe(0);
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, index) => (index * 31) & 0xff));
    expect(crc32(bytes)).toBe(zlibCrc32(bytes));
  });

  it('when a PNG is written, then its header, chunks and CRCs are what a reader checks', () => {
    const scanlines = Buffer.from([0, 1, 2, 3, 0, 4, 5, 6]);
    const file = pngFile(1, 2, 'rgb', scanlines);
    expect(file.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const chunks: Array<{ type: string; data: Buffer }> = [];
    for (let at = 8; at < file.length; ) {
      const length = file.readUInt32BE(at);
      const typed = file.subarray(at + 4, at + 8 + length);
      expect(file.readUInt32BE(at + 8 + length)).toBe(zlibCrc32(typed));
      chunks.push({ type: typed.subarray(0, 4).toString('latin1'), data: typed.subarray(4) });
      at += 12 + length;
    }
    expect(chunks.map((chunk) => chunk.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect([...chunks[0]!.data]).toEqual([0, 0, 0, 1, 0, 0, 0, 2, 8, 2, 0, 0, 0]);
    expect(inflateSync(chunks[1]!.data)).toEqual(scanlines);
    expect(pngFile(1, 1, 'rgba', Buffer.from([0, 1, 2, 3, 4]))[8 + 8 + 9]).toBe(6);
  });
});
