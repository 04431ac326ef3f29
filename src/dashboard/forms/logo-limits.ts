/**
 * What `setFormLogo` takes, for the builder's hint and its file input: the contract's media types (a type added there
 * is a compile error here) and its bounds of FormLogo's `size`, `width` and `height`, which the dashboard's form
 * settings test holds these numbers to.
 */
import type { Schema } from '../../client/schemas.js';

export type LogoType = Schema<'FormLogo'>['content_type'];

/** Each image type a logo may be, by the name a person knows it by. */
export const logoTypes: Record<LogoType, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/webp': 'WebP' };

export const logoLimits = { maxBytes: 262_144, minPixels: 16, maxPixels: 2048 } as const;

/** The file input's `accept`: the types above and nothing else (SVG is never taken). */
export const logoAccept = Object.keys(logoTypes).join(',');

/** A size as people read it: bytes below a kilobyte, then KB (1024 bytes, as the limit's 256 KB counts them). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const kilobytes = bytes / 1024;
  return `${kilobytes < 10 ? kilobytes.toFixed(1).replace(/\.0$/, '') : Math.round(kilobytes)} KB`;
}
