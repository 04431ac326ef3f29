// Verification of `X-Service-Signature`. The scheme itself (and signWebhookPayload, re-exported for
// partners who test their receivers) lives in src/webhook-signature.ts, which the server signs with too.
import { timingSafeEqual } from 'node:crypto';
import type { webhooks } from '../../generated/openapi.js';
import { type RawBody, webhookSignatureHex } from '../webhook-signature.js';

export { type RawBody, signWebhookPayload } from '../webhook-signature.js';

type JsonBodyOf<Operation> = Operation extends { requestBody?: { content: { 'application/json': infer Body } } } ? Body : never;
type DeclaredEvents = { [Name in keyof webhooks]: JsonBodyOf<webhooks[Name]['post']> }[keyof webhooks];

/**
 * The union of the event bodies the contract declares under `webhooks`, discriminated by `type`.
 * `unknown` while the generated types declare none.
 */
export type WebhookEvent = [DeclaredEvents] extends [never] ? unknown : DeclaredEvents;

export type WebhookSignatureFailureReason = 'malformed_header' | 'timestamp_out_of_tolerance' | 'no_matching_signature';

export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
  readonly reason: WebhookSignatureFailureReason;

  constructor(reason: WebhookSignatureFailureReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the signed timestamp and now, either way. Default 300 s. */
  toleranceSeconds?: number;
  /** The current time in Unix seconds; defaults to the system clock. */
  now?: number;
}

/**
 * The header as frameworks hand it over: `Headers.get` gives `string | null`, Node's `req.headers[…]`
 * `string | string[] | undefined` (an array when the header came more than once).
 */
export type SignatureHeader = string | readonly string[] | null | undefined;

/**
 * Checks `X-Service-Signature` against the raw request body (the exact bytes received: a body
 * that was parsed and re-serialised no longer matches) and returns the parsed event.
 * Throws WebhookSignatureError otherwise.
 */
export function verifyWebhookSignature(
  rawBody: RawBody,
  header: SignatureHeader,
  secret: string,
  { toleranceSeconds = 300, now = Math.floor(Date.now() / 1000) }: VerifyWebhookOptions = {},
): WebhookEvent {
  if (secret.length === 0) throw new TypeError('verifyWebhookSignature: secret must be a non-empty string.');
  // The service sends the header once; a repeated one is not something to pick a value from.
  if (typeof header === 'object' && header !== null && header.length !== 1) throw malformed('expected exactly one header');
  const { timestamp, signatures } = parseSignatureHeader((typeof header === 'object' && header !== null ? header[0] : header) ?? '');

  const expected = Buffer.from(webhookSignatureHex(secret, timestamp, rawBody), 'hex');
  // timingSafeEqual throws on a length mismatch; the check keeps that from becoming an oracle.
  const matches = signatures.some((s) => s.length === expected.length && timingSafeEqual(s, expected));
  if (!matches) {
    throw new WebhookSignatureError('no_matching_signature', 'No v1 signature matches the body and secret.');
  }
  // Checked after the signature, so this reason is only ever given for a genuine but stale or
  // early delivery (a replay, or a clock that is off), never for a forgery.
  if (Math.abs(now - timestamp) > toleranceSeconds) {
    throw new WebhookSignatureError(
      'timestamp_out_of_tolerance',
      `The signature timestamp is more than ${toleranceSeconds} s away from now.`,
    );
  }
  return JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody)) as WebhookEvent;
}

function parseSignatureHeader(header: string): { timestamp: number; signatures: Buffer[] } {
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const element of header.split(',')) {
    const [key, value, ...rest] = element.trim().split('=');
    if (key === undefined || value === undefined || rest.length > 0) throw malformed('expected key=value pairs');
    if (key === 't') {
      if (timestamp !== undefined) throw malformed('more than one t=');
      if (!/^\d{1,12}$/.test(value)) throw malformed('t= is not Unix seconds');
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) throw malformed('v1= is not a hex HMAC-SHA256');
      signatures.push(Buffer.from(value, 'hex'));
    }
    // Other schemes are skipped, so that a future scheme added beside v1 does not break receivers.
  }
  if (timestamp === undefined) throw malformed('no t=');
  if (signatures.length === 0) throw malformed('no v1=');
  return { timestamp, signatures };
}

function malformed(detail: string): WebhookSignatureError {
  return new WebhookSignatureError('malformed_header', `Malformed X-Service-Signature header: ${detail}.`);
}
