/**
 * Authentication of the public operations: a publishable key, and nothing else. A secret key or an OAuth token is
 * refused for what it is (403 `secret_key_not_allowed`, whether or not it is valid: the point is that nobody puts a
 * secret in a page), so no secret is ever looked up on these paths. A missing, malformed, unknown or revoked
 * publishable key gets 401 `invalid_api_key`, as any other key would.
 */
import { type Principal, principalWorkspace } from '../access.js';
import { forbidden, unauthorized } from '../errors.js';
import type { LastUsedRecorder } from '../keys/authenticate.js';
import { bearerCredential } from '../keys/bearer.js';
import { secretPattern } from '../keys/secret.js';
import { accessTokenPattern } from '../oauth/authenticate-token.js';
import type { Services } from '../services.js';
import { publishableKeyPattern } from './publishable-keys.js';

const missingMessage = 'Send a publishable key as `Authorization: Bearer <svc_pub_…>`.';

export async function authenticatePublishable(
  services: Services,
  authorization: string | undefined,
  lastUsed: LastUsedRecorder,
): Promise<Principal> {
  const value = bearerCredential(authorization);
  if (value !== undefined && (secretPattern.test(value) || accessTokenPattern.test(value))) {
    throw forbidden(
      'secret_key_not_allowed',
      'Public operations take a publishable key (svc_pub_…), never a secret key or OAuth token: a secret in a web page ' +
        'is readable by every visitor. Revoke this key if it was ever embedded in a page.',
    );
  }
  if (value === undefined || !publishableKeyPattern.test(value)) throw unauthorized(missingMessage);
  const record = await services.store.publishableKeys.findByValue(value);
  if (!record) throw unauthorized(missingMessage);
  const { key, workspace } = record;
  if (key.status !== 'active') throw unauthorized('This publishable key has been revoked; create a new key.');
  lastUsed.record(key.id, services.now());
  return {
    authType: 'publishable_key',
    id: key.id,
    name: key.name,
    workspace: principalWorkspace(workspace),
    environment: key.environment,
    // What the public operations do (read a form, submit to it) is what a read_write key may do.
    scope: 'read_write',
    attachment: key.attachment,
    expiresAt: null,
    credentialId: key.id,
    publishable: { key, tokenSecret: record.tokenSecret, hostedPage: record.hostedPage },
  };
}
