/**
 * Turns an `Authorization` header into a Principal, or fails with 401 `invalid_api_key` (403
 * `ip_not_allowed` for an allowlisted key used from elsewhere, 403 `publishable_key_not_allowed` for a
 * publishable key, which reaches the public operations only). Every 401 has the same status, type and
 * code. The message differs in one respect, as Stripe's does: a key that was revoked or has expired says so,
 * which tells its developer what to fix. Only someone holding the full secret can get those messages, so
 * they reveal nothing about keys the caller does not already have; a missing, malformed or unknown key
 * always gets the same generic message.
 */
import { type Principal, principalWorkspace, publishableKeyNotAllowed } from '../access.js';
import { forbidden, unauthorized } from '../errors.js';
import { accessTokenPattern, authenticateAccessToken } from '../oauth/authenticate-token.js';
import { publishableKeyPattern } from '../public/publishable-keys.js';
import type { Services } from '../services.js';
import { bearerCredential } from './bearer.js';
import { isAddressAllowed } from './ip-allowlist.js';
import { hashesMatch, hashSecret, secretPattern } from './secret.js';
import { expireApiKey } from './service.js';

const revokedMessage = 'This API key has been revoked; create a new key.';
const expiredMessage = 'This API key has expired; create a new key.';

export interface LastUsedRecorder {
  record(keyId: string, at: Date): void;
}

export async function authenticate(
  services: Services,
  authorization: string | undefined,
  clientIp: string,
  lastUsed: LastUsedRecorder,
): Promise<Principal> {
  const secret = bearerCredential(authorization);
  if (secret !== undefined && accessTokenPattern.test(secret)) return authenticateAccessToken(services, secret);
  // Refused for what it is, before any lookup: a publishable key reaches the public operations only.
  if (secret !== undefined && publishableKeyPattern.test(secret)) throw publishableKeyNotAllowed();
  if (secret === undefined || !secretPattern.test(secret)) throw unauthorized();
  const hash = hashSecret(secret);
  const record = await services.store.apiKeys.findBySecretHash(hash);
  if (!record || !hashesMatch(record.secretHash, hash)) throw unauthorized();
  const { key } = record;
  if (key.status !== 'active') throw unauthorized(key.revocation_cause === 'expired' ? expiredMessage : revokedMessage);
  const now = services.now();
  if (key.expires_at !== null && Date.parse(key.expires_at) <= now.getTime()) {
    await expireApiKey(services, key, record.workspaceId);
    throw unauthorized(expiredMessage);
  }
  if (!isAddressAllowed(key.ip_allowlist, clientIp)) {
    throw forbidden('ip_not_allowed', `Requests from ${clientIp} are not in this key's IP allowlist.`);
  }
  const { workspace } = record;
  lastUsed.record(key.id, now);
  return {
    authType: 'api_key',
    id: key.id,
    name: key.name,
    workspace: principalWorkspace(workspace),
    environment: key.environment,
    scope: key.scope,
    attachment: key.attachment,
    expiresAt: key.expires_at,
    credentialId: key.id,
  };
}
