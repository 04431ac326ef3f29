/**
 * Publishable keys made through the API, for the public operations' tests.
 */
import { expect } from 'vitest';
import type { Schema } from '../../src/contract.js';
import type { Caller, Loose } from './factories.js';

export type PublishableKey = Schema<'PublishableKey'>;

/** Creates a publishable key (test keys with the test admin key) allowing https://www.acme.example unless told otherwise. */
export async function createPublishableKey(
  api: Caller,
  body: Loose<Schema<'PublishableKeyCreate'>> & Pick<Schema<'PublishableKeyCreate'>, 'environment'>,
  adminKey = body.environment === 'test' ? api.workspace.test_admin_key : api.workspace.live_admin_key,
): Promise<PublishableKey> {
  const res = await api
    .call('post', '/v1/publishable_keys', adminKey)
    .send({ name: 'Website', allowed_origins: ['https://www.acme.example'], ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as PublishableKey;
}

/**
 * A started token spelled otherwise for the same bytes: its signature's last base64url character with an unused bit
 * flipped (43 characters carry 258 bits for a 256-bit signature).
 */
export function respelledStartedToken(token: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return token.slice(0, -1) + alphabet[alphabet.indexOf(token.slice(-1)) ^ 1];
}
