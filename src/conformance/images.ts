/**
 * Image files made in code, for what takes an uploaded image (a form's logo): a real PNG of any size, every chunk
 * with its CRC, so that a server checking the file by its bytes takes it. No image library is needed to make one.
 */
import { crc32, deflateSync } from 'node:zlib';

const chunk = (type: string, data: Buffer): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
};

/** A PNG of `width` x `height` opaque pixels of one colour (8-bit RGB); `seed` changes the colour, and so the file. */
export function pngImage(width: number, height: number, seed = 0): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([0x43, 0x38, (0xca + seed) & 0xff], 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An SVG logo: a document that can carry a script, which a server must refuse whatever media type it is sent as. */
export const svgImage = (): Buffer =>
  Buffer.from(
    '<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32">' +
      '<script>alert(document.domain)</script><rect width="32" height="32" fill="#4338ca"/></svg>\n',
  );
