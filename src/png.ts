/**
 * PNG files written in code (the favicon, the conformance kit's logos): the signature, then IHDR, one IDAT of the
 * deflated scanlines and IEND, each chunk with its CRC-32. The CRC is computed here rather than by `zlib.crc32`, which
 * Node has only from 20.15 and 22.2, older than the versions package.json's engines allow.
 */
import { deflateSync } from 'node:zlib';

const crcTable = Uint32Array.from({ length: 256 }, (_, byte) => {
  let value = byte;
  for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  return value >>> 0;
});

/** CRC-32 as PNG (and zlib, gzip) define it. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const check = Buffer.alloc(4);
  check.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, check]);
}

/** A colour type PNG knows: 2 is 8-bit RGB, 6 is 8-bit RGBA. */
export type PngColour = 'rgb' | 'rgba';

/** A PNG of `width` x `height` pixels from its scanlines (each a filter byte, then the row's pixels). */
export function pngFile(width: number, height: number, colour: PngColour, scanlines: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bits per channel
  header.writeUInt8(colour === 'rgb' ? 2 : 6, 9);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(scanlines, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
