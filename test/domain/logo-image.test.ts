/**
 * A logo upload read from its bytes: a whole PNG, JPEG or WebP of the declared type, within 16 to 2048 pixels each
 * way, described by what is read from it; anything else refused with 422 invalid_image saying what the file is.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/access.js';
import { AppError } from '../../src/domain/errors.js';
import { setFormLogo } from '../../src/domain/forms/logo.js';
import { assertLogoImage, isLogoType, MAX_LOGO_BYTES } from '../../src/domain/forms/logo-image.js';
import type { Services } from '../../src/domain/services.js';
import { jpegImage, pngImage, simpleWebpImage, svgImage, webpImage } from '../support/images.js';

/** The refusal `assertLogoImage` throws, as the client reads it. */
function refusal(bytes: Uint8Array, type: 'image/png' | 'image/jpeg' | 'image/webp') {
  try {
    assertLogoImage(bytes, type);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const { status, code, message, details } = error as AppError;
    return { status, code, message, issues: details?.errors };
  }
  throw new Error('the image was taken');
}

const invalid = (message: string, issue: string) => ({
  status: 422,
  code: 'invalid_image',
  message,
  issues: [{ location: 'body', pointer: '', code: 'invalid_image', message: issue }],
});

/** The JPEG fixture with an EXIF segment whose orientation tag says the picture is turned a quarter (6) or not (1). */
function jpegWithOrientation(orientation: number, littleEndian = false): Buffer {
  const tiff = Buffer.alloc(26);
  if (littleEndian) {
    tiff.write('II', 0, 'latin1');
    tiff.writeUInt16LE(42, 2);
    tiff.writeUInt32LE(8, 4);
    tiff.writeUInt16LE(1, 8);
    tiff.writeUInt16LE(0x0112, 10);
    tiff.writeUInt16LE(3, 12);
    tiff.writeUInt32LE(1, 14);
    tiff.writeUInt16LE(orientation, 18);
  } else {
    tiff.write('MM', 0, 'latin1');
    tiff.writeUInt16BE(42, 2);
    tiff.writeUInt32BE(8, 4);
    tiff.writeUInt16BE(1, 8);
    tiff.writeUInt16BE(0x0112, 10);
    tiff.writeUInt16BE(3, 12);
    tiff.writeUInt32BE(1, 14);
    tiff.writeUInt16BE(orientation, 18);
  }
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const segment = Buffer.alloc(4);
  segment.writeUInt16BE(0xffe1, 0);
  segment.writeUInt16BE(payload.length + 2, 2);
  const jpeg = jpegImage();
  return Buffer.concat([jpeg.subarray(0, 2), segment, payload, jpeg.subarray(2)]);
}

describe('assertLogoImage', () => {
  it.each([
    ['a PNG', pngImage(64, 32), 'image/png', 64, 32],
    ['a JPEG', jpegImage(), 'image/jpeg', 40, 24],
    ['an extended WebP', webpImage(), 'image/webp', 40, 24],
    ['a simple WebP', simpleWebpImage(), 'image/webp', 40, 24],
    ['the smallest logo', pngImage(16, 16), 'image/png', 16, 16],
    ['the largest logo', pngImage(2048, 2048), 'image/png', 2048, 2048],
  ] as const)(
    'when %s is sent as its type, then it is described by its hash, type, dimensions and size',
    (_name, bytes, type, width, height) => {
      expect(assertLogoImage(bytes, type)).toEqual({
        sha256: createHash('sha256').update(bytes).digest('hex'),
        content_type: type,
        width,
        height,
        size: bytes.length,
      });
    },
  );

  it('when a JPEG says it is turned a quarter, then its width and height are as it is shown; upright, as stored', () => {
    expect(assertLogoImage(jpegWithOrientation(6), 'image/jpeg')).toMatchObject({ width: 24, height: 40 });
    expect(assertLogoImage(jpegWithOrientation(8, true), 'image/jpeg')).toMatchObject({ width: 24, height: 40 });
    expect(assertLogoImage(jpegWithOrientation(5), 'image/jpeg')).toMatchObject({ width: 24, height: 40 });
    expect(assertLogoImage(jpegWithOrientation(4), 'image/jpeg')).toMatchObject({ width: 40, height: 24 });
    expect(assertLogoImage(jpegWithOrientation(1), 'image/jpeg')).toMatchObject({ width: 40, height: 24 });
  });

  it('when the body is empty, then it is refused as empty', () => {
    expect(refusal(Buffer.alloc(0), 'image/png')).toEqual(
      invalid('The body is empty: send the image file itself as the body.', 'is empty'),
    );
  });

  it.each([
    ['an SVG with an XML declaration', svgImage()],
    ['a bare SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"/>')],
    ['an SVG after a byte order mark and blank lines', Buffer.from('\uFEFF\n\n  <svg>\n</svg>')],
    ['an SVG after a comment and a doctype', Buffer.from('<!-- logo --><!DOCTYPE svg><SVG viewBox="0 0 1 1"></SVG>')],
  ])('when %s is sent as a PNG, then it is refused as SVG', (_name, bytes) => {
    expect(refusal(bytes, 'image/png')).toEqual(
      invalid('The body is an SVG image, which is never taken (it can carry scripts): send a PNG, JPEG or WebP image.', 'is an SVG image'),
    );
  });

  it('when a text or HTML document is sent, then it is not the image its type names, even if it mentions svg later on', () => {
    const html = Buffer.from(`<html><body>${'x'.repeat(5000)}<svg></svg></body></html>`);
    expect(refusal(html, 'image/webp')).toEqual(
      invalid('The body is not a WebP image, as its Content-Type says it is.', 'is not a WebP image'),
    );
    // Markup that is not where a document starts is no SVG document.
    expect(refusal(Buffer.from('logo: <svg></svg>'), 'image/png')).toEqual(
      invalid('The body is not a PNG image, as its Content-Type says it is.', 'is not a PNG image'),
    );
    expect(refusal(Buffer.from('an svg logo'), 'image/jpeg')).toEqual(
      invalid('The body is not a JPEG image, as its Content-Type says it is.', 'is not a JPEG image'),
    );
  });

  it('when an image of another kind than a logo’s is sent, then it is not the image its type names', () => {
    const gif = Buffer.from('R0lGODlhEAAQAIAAAP///wAAACH5BAEAAAAALAAAAAAQABAAAAIOhI+py+0Po5y02ouzPgUAOw==', 'base64');
    expect(refusal(gif, 'image/png')).toEqual(
      invalid('The body is not a PNG image, as its Content-Type says it is.', 'is not a PNG image'),
    );
  });

  it.each([
    [pngImage(32, 32), 'image/jpeg', 'PNG', 'JPEG', 'image/png'],
    [jpegImage(), 'image/png', 'JPEG', 'PNG', 'image/jpeg'],
    [webpImage(), 'image/jpeg', 'WebP', 'JPEG', 'image/webp'],
    [pngImage(32, 32), 'image/webp', 'PNG', 'WebP', 'image/png'],
  ] as const)(
    'when the body is another logo type than declared, then the refusal names both and the type to send',
    (bytes, declared, actual, name, type) => {
      expect(refusal(bytes, declared)).toEqual(
        invalid(
          `The body is a ${actual} image, not a ${name} image as its Content-Type says: send it with Content-Type ${type}.`,
          `is a ${actual} image, not a ${name} image`,
        ),
      );
    },
  );

  it.each([
    [15, 15],
    [2049, 16],
    [16, 2049],
    [16, 15],
    [15, 2048],
  ])('when the image is %ix%i pixels, then it is refused with its dimensions and the bounds', (width, height) => {
    expect(refusal(pngImage(width, height), 'image/png')).toEqual(
      invalid(
        `The image is ${width}x${height} pixels; a logo is between 16 and 2048 pixels wide and high.`,
        `is ${width}x${height} pixels, outside 16 to 2048 pixels wide and high`,
      ),
    );
  });

  const notWhole = (name: string) =>
    invalid(`The body is not a whole ${name} image: it ends before the image does, or goes on after it.`, `is not a whole ${name} image`);

  it('when a PNG is cut short, or goes on after its end, then it is not a whole PNG', () => {
    const png = pngImage(64, 64);
    expect(refusal(png.subarray(0, 40), 'image/png')).toEqual(notWhole('PNG'));
    expect(refusal(png.subarray(0, png.length - 1), 'image/png')).toEqual(notWhole('PNG'));
    expect(refusal(png.subarray(0, png.length - 12), 'image/png')).toEqual(notWhole('PNG'));
    expect(refusal(Buffer.concat([png, Buffer.from('<script>')]), 'image/png')).toEqual(notWhole('PNG'));
    // An IEND that claims a body is not the end a PNG has.
    const longEnd = Buffer.from(png);
    longEnd.writeUInt32BE(4, png.length - 12);
    expect(refusal(Buffer.concat([longEnd, Buffer.alloc(4)]), 'image/png')).toEqual(notWhole('PNG'));
    // A chunk that says it is longer than the file.
    const overlong = Buffer.from(png);
    overlong.writeUInt32BE(0xffffff, 33);
    expect(refusal(overlong, 'image/png')).toEqual(notWhole('PNG'));
  });

  it('when a JPEG lacks its end-of-image marker, or has bytes after it, then it is not a whole JPEG', () => {
    const jpeg = jpegImage();
    expect(refusal(jpeg.subarray(0, jpeg.length - 1), 'image/jpeg')).toEqual(notWhole('JPEG'));
    expect(refusal(jpeg.subarray(0, jpeg.length - 2), 'image/jpeg')).toEqual(notWhole('JPEG'));
    expect(refusal(Buffer.concat([jpeg, Buffer.from([0])]), 'image/jpeg')).toEqual(notWhole('JPEG'));
    const wrongLast = Buffer.from(jpeg);
    wrongLast[jpeg.length - 1] = 0xd8;
    expect(refusal(wrongLast, 'image/jpeg')).toEqual(notWhole('JPEG'));
    const wrongMarker = Buffer.from(jpeg);
    wrongMarker[jpeg.length - 2] = 0x00;
    expect(refusal(wrongMarker, 'image/jpeg')).toEqual(notWhole('JPEG'));
  });

  it('when a WebP is not as long as its RIFF header says, then it is not a whole WebP', () => {
    const webp = webpImage();
    expect(refusal(webp.subarray(0, webp.length - 2), 'image/webp')).toEqual(notWhole('WebP'));
    expect(refusal(Buffer.concat([webp, Buffer.alloc(2)]), 'image/webp')).toEqual(notWhole('WebP'));
  });

  it('when the body is larger than 262144 bytes, then 413 with that limit, before it is read', () => {
    const large = Buffer.concat([pngImage(32, 32), Buffer.alloc(MAX_LOGO_BYTES)]);
    expect(() => assertLogoImage(large, 'image/png')).toThrow(
      expect.objectContaining({ status: 413, details: { max_body_bytes: 262_144 } }),
    );
    expect(MAX_LOGO_BYTES).toBe(262_144);
    // The limit itself is taken.
    const exact = Buffer.concat([
      jpegImage().subarray(0, -2),
      Buffer.alloc(MAX_LOGO_BYTES - jpegImage().length),
      Buffer.from([0xff, 0xd9]),
    ]);
    expect(exact.length).toBe(MAX_LOGO_BYTES);
    expect(assertLogoImage(exact, 'image/jpeg').size).toBe(MAX_LOGO_BYTES);
  });

  it('when the bytes are a view into a larger buffer, then only the view is read', () => {
    const png = pngImage(20, 20);
    const padded = Buffer.concat([Buffer.from('<svg>'), png, Buffer.from('tail')]);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 5, png.length);
    expect(assertLogoImage(view, 'image/png')).toMatchObject({
      width: 20,
      height: 20,
      sha256: createHash('sha256').update(png).digest('hex'),
    });
  });
});

describe('isLogoType', () => {
  it('when a media type is one a logo may be sent in, then true; any other, or a name of the object’s prototype, false', () => {
    expect(['image/png', 'image/jpeg', 'image/webp'].map(isLogoType)).toEqual([true, true, true]);
    expect(['image/svg+xml', 'image/gif', 'image/PNG', 'toString', 'constructor', ''].map(isLogoType)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('setFormLogo', () => {
  it('when the upload is in a media type no logo has, then 415 naming the three, before the form is looked up', async () => {
    // No store: a lookup would throw something else than the 415.
    const services = {} as Services;
    const upload = { bytes: pngImage(16, 16), contentType: 'image/gif' };
    await expect(setFormLogo(services, {} as Principal, 'form_000000000000000000000000', upload)).rejects.toMatchObject({
      status: 415,
      code: 'unsupported_media_type',
      message: 'Send the request body as image/png, image/jpeg or image/webp.',
    });
  });
});
