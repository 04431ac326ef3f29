/**
 * Real image files for the logo tests: PNGs of any size made in code (a valid file of the format, every chunk with its
 * CRC), and a JPEG and two WebPs that Chromium's canvas encoded, 40x24 pixels each, under test/fixtures/logos/.
 */
import { readFileSync } from 'node:fs';

// The PNG maker and the SVG are the conformance kit's, which uploads logos too.
export { pngImage, svgImage } from '../../src/conformance/images.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`../fixtures/logos/${name}`, import.meta.url));

/** A baseline JPEG with a JFIF and an ICC profile segment, as Chromium encodes a canvas. */
export const jpegImage = (): Buffer => fixture('logo-40x24.jpg');
/** An extended WebP (VP8X, with an ICC profile, then the lossy VP8 image), as Chromium encodes a canvas. */
export const webpImage = (): Buffer => fixture('logo-40x24.webp');
/** The same image as a simple lossy WebP: the RIFF header and one VP8 chunk. */
export const simpleWebpImage = (): Buffer => fixture('logo-40x24-simple.webp');
