/**
 * The domain's reading of a store's refusals (`src/store/errors.ts`) that mean the same thing wherever they
 * happen. Refusals whose message depends on the use case (a taken slug, the last admin) are mapped where
 * they are caught.
 */
import { RecordNotFound } from '../store/errors.js';
import { notFound } from './errors.js';

/** A record deleted between the use case's read and its write is a 404, as if the read had missed it. */
export function rethrowAsNotFound(error: unknown): never {
  if (error instanceof RecordNotFound) throw notFound(error.kind, error.id);
  throw error;
}
