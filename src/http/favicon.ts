/**
 * The icon of the hosted pages, served at `/favicon.ico`: without it every page a browser shows (the form, its frame
 * on a customer's site, a not-found page) logs a failed request for it. Drawn here rather than kept as a binary file,
 * so the picture is reviewable: a form (two fields and a button) in white on the pages' default accent colour, 32 by
 * 32 pixels, as a PNG inside an ICO container (which every browser reads since Internet Explorer's last versions).
 */
import { pngFile } from '../png.js';

const size = 32;
/** The page's default accent (`appearance.accent_color`'s default). */
const accent = [0x43, 0x38, 0xca] as const;

/** A rectangle with rounded corners, in pixel coordinates. */
interface Shape {
  left: number;
  top: number;
  right: number;
  bottom: number;
  radius: number;
}

const background: Shape = { left: 0, top: 0, right: 32, bottom: 32, radius: 7 };
const marks: Shape[] = [
  { left: 7, top: 7, right: 25, bottom: 11, radius: 1.5 },
  { left: 7, top: 14, right: 25, bottom: 18, radius: 1.5 },
  { left: 7, top: 21, right: 17, bottom: 25, radius: 2 },
];

function inside(shape: Shape, x: number, y: number): boolean {
  if (x < shape.left || x >= shape.right || y < shape.top || y >= shape.bottom) return false;
  const dx = Math.max(shape.left + shape.radius - x, 0, x - (shape.right - shape.radius));
  const dy = Math.max(shape.top + shape.radius - y, 0, y - (shape.bottom - shape.radius));
  return dx * dx + dy * dy <= shape.radius * shape.radius;
}

/** How much of pixel (x, y) a shape covers, from 4 by 4 samples: smooth edges at this size. */
function coverage(shapes: readonly Shape[], x: number, y: number): number {
  let hits = 0;
  for (let i = 0; i < 4; i += 1)
    for (let j = 0; j < 4; j += 1) if (shapes.some((shape) => inside(shape, x + (i + 0.5) / 4, y + (j + 0.5) / 4))) hits += 1;
  return hits / 16;
}

/** The picture's rows as PNG scanlines: a filter byte (0, none) and RGBA pixels, not premultiplied. */
function scanlines(): Buffer {
  const rows = Buffer.alloc(size * (1 + size * 4));
  for (let y = 0; y < size; y += 1) {
    const row = y * (1 + size * 4);
    for (let x = 0; x < size; x += 1) {
      const white = coverage(marks, x, y);
      const pixel = row + 1 + x * 4;
      for (let channel = 0; channel < 3; channel += 1) rows[pixel + channel] = Math.round(accent[channel]! * (1 - white) + 255 * white);
      rows[pixel + 3] = Math.round(255 * coverage([background], x, y));
    }
  }
  return rows;
}

/** An ICO file holding one 32 by 32 PNG: its header, one directory entry, the image. */
function ico(image: Buffer): Buffer {
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // an icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(size, 6);
  header.writeUInt8(size, 7);
  header.writeUInt8(0, 8); // no palette
  header.writeUInt8(0, 9); // reserved
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18); // where the image starts
  return Buffer.concat([header, image]);
}

let drawn: Buffer | undefined;

/** The icon's bytes, drawn on first use. */
export function favicon(): Buffer {
  drawn ??= ico(pngFile(size, size, 'rgba', scanlines()));
  return drawn;
}
