/**
 * `metadata` on forms, submissions, folders and integrations: the caller's own key-value pairs, as in Stripe. The
 * document's schemas bound one request (key and value lengths, at most 50 keys, strings only); what only the
 * stored pairs can tell, the number of keys after an update's merge, is checked here.
 */
import type { Schema } from '../contract.js';
import { badRequest } from './errors.js';

export type Metadata = Schema<'Metadata'>;
export type MetadataUpdate = Schema<'MetadataUpdate'>;

/** `Metadata.maxProperties`: how many keys an object may hold (test/domain/spec-sync.test.ts pins it). */
export const MAX_METADATA_KEYS = 50;

/** The metadata a create stores: the pairs given, without those given as `""` (nothing to remove yet). */
export const createdMetadata = (given: MetadataUpdate | undefined): Metadata => mergedMetadata({}, given);

/**
 * `changes` merged over `stored` (Stripe semantics): a key given replaces its value, a key given as `""` is removed,
 * a key left out is kept. 400 `invalid_parameters` when the result would hold more than `MAX_METADATA_KEYS` keys.
 */
export function mergedMetadata(stored: Metadata, changes: MetadataUpdate | undefined): Metadata {
  if (changes === undefined) return stored;
  const merged: Metadata = { ...stored };
  for (const [key, value] of Object.entries(changes)) {
    if (value === '') delete merged[key];
    else merged[key] = value;
  }
  const keys = Object.keys(merged).length;
  if (keys > MAX_METADATA_KEYS) {
    throw badRequest('invalid_parameters', `metadata would hold ${keys} keys; at most ${MAX_METADATA_KEYS} are kept.`, [
      {
        location: 'body',
        pointer: '/metadata',
        code: 'max_properties',
        message: `must NOT have more than ${MAX_METADATA_KEYS} properties once merged with the ${Object.keys(stored).length} stored`,
      },
    ]);
  }
  return merged;
}
