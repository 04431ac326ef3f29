/**
 * What a logo upload is, read from its bytes and never from its name or `Content-Type` alone: a whole PNG, JPEG or
 * WebP image of the type the client declared, within the pixel bounds. image-size reads the type and dimensions from
 * the image's header; whether the file is whole (no truncated download; for PNG and WebP nothing appended after the
 * image's end, as a file that is an image and something else at once would have; for JPEG, ending with its end-of-image
 * marker, which data appended after the image could also end with) is checked here, per format. The file is only ever
 * served as the type it was read as, with `nosniff`, so what a JPEG could carry after its end is never read as anything
 * else. SVG is never taken: it is a document that can carry scripts, which a page of the service's own origin must
 * never serve.
 */
import { createHash } from 'node:crypto';
import { imageSize } from 'image-size';
import type { Schema } from '../../contract.js';
import { type AppError, payloadTooLarge, unprocessable } from '../errors.js';
import { bodyIssue } from '../validation-issue.js';

export type LogoType = Schema<'FormLogo'>['content_type'];

/** The image as the form's `logo` keeps it, with the content hash that names its address. */
export interface LogoImage {
  sha256: string;
  content_type: LogoType;
  width: number;
  height: number;
  size: number;
}

/** `FormLogo.size` and the request body's `maxLength` (test/domain/spec-sync.test.ts pins them). */
export const MAX_LOGO_BYTES = 256 * 1024;
/** `FormLogo.width` and `height`: a logo smaller than this shows as a smudge, a larger one only costs bytes. */
export const MIN_LOGO_PIXELS = 16;
export const MAX_LOGO_PIXELS = 2048;

const typeNames: Readonly<Record<LogoType, string>> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/webp': 'WebP' };
/** image-size's names of the types a logo may have. */
const detectedTypes: ReadonlyMap<string | undefined, LogoType> = new Map([
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['webp', 'image/webp'],
]);

/** Whether a media type is one a logo may be sent in. */
export const isLogoType = (mediaType: string): mediaType is LogoType => Object.hasOwn(typeNames, mediaType);

/**
 * The image in `bytes`, sent as `declared`; 422 `invalid_image` naming what is wrong when it is not a whole image of
 * that type within the bounds (413 above the size limit, which the HTTP layer refuses before reading the body).
 */
export function assertLogoImage(bytes: Uint8Array, declared: LogoType): LogoImage {
  if (bytes.length > MAX_LOGO_BYTES) throw payloadTooLarge(MAX_LOGO_BYTES);
  const read = readImage(bytes, declared);
  if ('refusal' in read) throw read.refusal;
  const { width, height } = read;
  if (!withinBounds(width) || !withinBounds(height)) {
    throw invalidImage(
      `The image is ${width}x${height} pixels; a logo is between ${MIN_LOGO_PIXELS} and ${MAX_LOGO_PIXELS} pixels wide and high.`,
      `is ${width}x${height} pixels, outside ${MIN_LOGO_PIXELS} to ${MAX_LOGO_PIXELS} pixels wide and high`,
    );
  }
  return { sha256: createHash('sha256').update(bytes).digest('hex'), content_type: declared, width, height, size: bytes.length };
}

const withinBounds = (pixels: number): boolean => Number.isInteger(pixels) && pixels >= MIN_LOGO_PIXELS && pixels <= MAX_LOGO_PIXELS;

const invalidImage = (message: string, issue: string): AppError =>
  unprocessable('invalid_image', [bodyIssue('', 'invalid_image', issue)], message);

/** The image's displayed dimensions, or why the bytes are not a whole image of the declared type. */
function readImage(bytes: Uint8Array, declared: LogoType): { width: number; height: number } | { refusal: AppError } {
  const name = typeNames[declared];
  if (bytes.length === 0) return { refusal: invalidImage('The body is empty: send the image file itself as the body.', 'is empty') };
  if (looksLikeSvg(bytes)) {
    return {
      refusal: invalidImage(
        'The body is an SVG image, which is never taken (it can carry scripts): send a PNG, JPEG or WebP image.',
        'is an SVG image',
      ),
    };
  }
  const notThat = invalidImage(`The body is not a ${name} image, as its Content-Type says it is.`, `is not a ${name} image`);
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(bytes);
  } catch {
    return { refusal: notThat };
  }
  const detected = detectedTypes.get(size.type);
  if (detected === undefined) return { refusal: notThat };
  if (detected !== declared) {
    const actual = typeNames[detected];
    return {
      refusal: invalidImage(
        `The body is a ${actual} image, not a ${name} image as its Content-Type says: send it with Content-Type ${detected}.`,
        `is a ${actual} image, not a ${name} image`,
      ),
    };
  }
  if (!isWhole[declared](bytes)) {
    return {
      refusal: invalidImage(
        `The body is not a whole ${name} image: it ends before the image does, or goes on after it.`,
        `is not a whole ${name} image`,
      ),
    };
  }
  // EXIF orientations 5 to 8 turn the picture a quarter: browsers show it, and so the page lays it out, rotated.
  const turned = (size.orientation ?? 1) >= 5;
  return turned ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
}

/** An SVG document, with or without an XML declaration, a byte order mark, comments or a doctype before its root. */
function looksLikeSvg(bytes: Uint8Array): boolean {
  const start = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4096)).toString('utf8');
  return /^\uFEFF?\s*</.test(start) && /<svg[\s>/]/i.test(start);
}

const ascii = (bytes: Uint8Array, start: number, end: number): string => Buffer.from(bytes.subarray(start, end)).toString('latin1');
const uint32 = (bytes: Uint8Array, at: number, littleEndian: boolean): number =>
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at, littleEndian);

/**
 * Whether the file holds the whole image and nothing after it. The header alone gives the type and dimensions; a
 * download cut short, or another file appended to the image, has the same header.
 */
const isWhole: Readonly<Record<LogoType, (bytes: Uint8Array) => boolean>> = {
  // Chunks (length, type, data, CRC) from after the signature to IEND, which must end the file.
  'image/png': (bytes) => {
    let at = 8;
    while (at + 12 <= bytes.length) {
      const length = uint32(bytes, at, false);
      const end = at + 12 + length;
      if (ascii(bytes, at + 4, at + 8) === 'IEND') return length === 0 && end === bytes.length;
      at = end;
    }
    return false;
  },
  // Start of image, then whatever the segments hold, then the end-of-image marker as the last two bytes.
  'image/jpeg': (bytes) => bytes[bytes.length - 2] === 0xff && bytes[bytes.length - 1] === 0xd9,
  // A RIFF container says how long it is: the 8 bytes of its own header and then that many.
  'image/webp': (bytes) => uint32(bytes, 4, true) + 8 === bytes.length,
};
