/**
 * Responses kept for idempotent replay are sealed with a key derived from the client's Idempotency-Key,
 * and the key itself is stored only as a hash. A stored response can hold a secret shown once (a new API
 * key's `secret`, an integration's `signing_secret`): the database alone can neither read it nor replay
 * it; only the caller that holds the Idempotency-Key can get its own response back.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

export interface ReplayableResponse {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** What the store indexes: a hash of the owner and the key, never the key. */
export const idempotencyKeyHash = (ownerId: string, idempotencyKey: string): string =>
  createHash('sha256').update(`${ownerId}\n${idempotencyKey}`).digest('hex');

const sealingKey = (ownerId: string, idempotencyKey: string): Buffer =>
  Buffer.from(hkdfSync('sha256', idempotencyKey, ownerId, 'form-funnel idempotent response', 32));

export function sealResponse(ownerId: string, idempotencyKey: string, response: ReplayableResponse): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(ownerId, idempotencyKey), nonce);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(response), 'utf8'), cipher.final()]);
  return [nonce, cipher.getAuthTag(), sealed].map((part) => part.toString('base64')).join('.');
}

export function openResponse(ownerId: string, idempotencyKey: string, sealed: string): ReplayableResponse {
  const [nonce, tag, data] = sealed.split('.').map((part) => Buffer.from(part, 'base64'));
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(ownerId, idempotencyKey), nonce!);
  decipher.setAuthTag(tag!);
  return JSON.parse(Buffer.concat([decipher.update(data!), decipher.final()]).toString('utf8')) as ReplayableResponse;
}
