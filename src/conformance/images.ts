/**
 * Image files made in code, for what takes an uploaded image (a form's logo): a real PNG of any size, every chunk
 * with its CRC, so that a server checking the file by its bytes takes it. No image library is needed to make one.
 */
import { pngFile } from '../png.js';

/** A PNG of `width` x `height` opaque pixels of one colour (8-bit RGB); `seed` changes the colour, and so the file. */
export function pngImage(width: number, height: number, seed = 0): Buffer {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([0x43, 0x38, (0xca + seed) & 0xff], 1 + x * 3);
  return pngFile(width, height, 'rgb', Buffer.concat(Array.from({ length: height }, () => row)));
}

/** An SVG logo: a document that can carry a script, which a server must refuse whatever media type it is sent as. */
export const svgImage = (): Buffer =>
  Buffer.from(
    '<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32">' +
      '<script>alert(document.domain)</script><rect width="32" height="32" fill="#4338ca"/></svg>\n',
  );
