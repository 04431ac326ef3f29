/**
 * The bearer-key check. The pipeline (app.ts) already enforces the contract's rules on the header: exactly
 * `Bearer <key>` (scheme case-sensitive, one space, nothing after), otherwise 401 `invalid_api_key`; the kind of
 * key each operation's security requirement names (a publishable key on the public operations, 403
 * `secret_key_not_allowed` for a secret one; a secret key everywhere else, 403 `publishable_key_not_allowed`); and
 * the minimum scope it lists, otherwise 403 `insufficient_scope`.
 */
import { createHash } from 'node:crypto';
import type { components } from './generated/openapi.js';

export type Scope = components['schemas']['Scope'];
export type Environment = components['schemas']['Environment'];

/** What the handlers learn about the caller. Add what your handlers need (workspace, attachment, ...). */
export interface ApiKey {
  id: string;
  scope: Scope;
  environment: Environment;
}

// ---------------------------------------------------------------------------------------------------------------
// IMPLEMENT: look the key up in your own store. Answer undefined for an unknown, expired or revoked key (the
// caller gets 401 invalid_api_key). Compare secrets in constant time, or store and compare only their hashes.
//
// Until you do, every well-formed `svc_live_…` or `svc_test_…` key is accepted with the admin scope, so that
// every operation can be reached while the server is being written. Never deploy it like this.
// ---------------------------------------------------------------------------------------------------------------
export async function lookUpKey(secret: string): Promise<ApiKey | undefined> {
  const environment = /^svc_(live|test)_[0-9A-Za-z]+$/.exec(secret)?.[1] as Environment | undefined;
  if (!environment) return undefined;
  // An id of the contract's shape, the same for the same key.
  const id = `key_${createHash('sha256').update(secret).digest('hex').slice(0, 24)}`;
  return { id, scope: 'admin', environment };
}

/** A publishable key's value (`svc_pub_live_…`, `svc_pub_test_…`), told from a secret key by its prefix. */
export const isPublishableKey = (credential: string): boolean => credential.startsWith('svc_pub_');

// ---------------------------------------------------------------------------------------------------------------
// IMPLEMENT: look the publishable key up in your own store (the public operations, `/public/…`, take nothing
// else). Answer undefined for an unknown or revoked key (401 invalid_api_key). Checking the request's Origin
// against the key's allowed origins is yours to write too (403 origin_not_allowed).
//
// Until you do, every well-formed `svc_pub_live_…` or `svc_pub_test_…` key is accepted, with the read_write scope
// that reading a form and submitting to it need. Never deploy it like this.
// ---------------------------------------------------------------------------------------------------------------
export async function lookUpPublishableKey(value: string): Promise<ApiKey | undefined> {
  const environment = /^svc_pub_(live|test)_[0-9A-Za-z]+$/.exec(value)?.[1] as Environment | undefined;
  if (!environment) return undefined;
  const id = `pk_${createHash('sha256').update(value).digest('hex').slice(0, 24)}`;
  return { id, scope: 'read_write', environment };
}
