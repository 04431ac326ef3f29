/**
 * The `X-Service-Signature` scheme, shared by the server that signs deliveries and the client that partners use
 * to verify them. It belongs to neither: the server must not depend on the partner client, and the client must
 * not carry server code. Plain `node:crypto`, nothing else.
 */
import { createHmac } from 'node:crypto';

export type RawBody = string | Uint8Array; // Buffer is a Uint8Array

/** Hex HMAC-SHA256 of `"<t>.<raw body>"` under `secret`: the value of one `v1=` element. */
export function webhookSignatureHex(secret: string, timestampSeconds: number, rawBody: RawBody): string {
  // Fed as bytes, so a Buffer body is signed exactly as received, without a decode/encode round trip.
  return createHmac('sha256', secret).update(`${timestampSeconds}.`).update(rawBody).digest('hex');
}

/**
 * Returns the `X-Service-Signature` value `t=<t>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * Given several secrets (while one is rotated), it emits one `v1=` per secret, so receivers
 * holding either secret accept the delivery.
 */
export function signWebhookPayload(rawBody: RawBody, secret: string | readonly string[], timestampSeconds: number): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError('signWebhookPayload: timestampSeconds must be a non-negative integer (Unix seconds).');
  }
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0 || secrets.some((s) => s.length === 0)) {
    throw new TypeError('signWebhookPayload: secret must be a non-empty string.');
  }
  const signatures = secrets.map((s) => `v1=${webhookSignatureHex(s, timestampSeconds, rawBody)}`);
  return [`t=${timestampSeconds}`, ...signatures].join(',');
}
