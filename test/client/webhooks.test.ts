import { describe, expect, expectTypeOf, it } from 'vitest';
import type { EventType, Schema } from '../../src/client/index.js';
import { signWebhookPayload, verifyWebhookSignature, type WebhookEvent, WebhookSignatureError } from '../../src/client/webhooks.js';

// Test vector computed independently of this code, with OpenSSL 3.0:
//   printf '%s' "1700000000.$BODY" | openssl dgst -sha256 -hmac 'whsec_Vk3pQ9zL2mN8xR4tY6wB1cD5'
//   printf '%s' "1700000000.$BODY" | openssl dgst -sha256 -hmac 'whsec_Old0ld0ld0ld0ld0ld0ld0l'
// where $BODY is exactly the string below (UTF-8; 221 bytes for 218 characters, so a
// character/byte mix-up would show).
const SECRET = 'whsec_Vk3pQ9zL2mN8xR4tY6wB1cD5';
const OLD_SECRET = 'whsec_Old0ld0ld0ld0ld0ld0ld0l';
const T = 1700000000;
const BODY =
  '{"id":"evt_0aB1cD2eF3gH4iJ5kL6mN7oP","object":"event","type":"form.created","created_at":"2023-11-14T22:13:20Z","test":false,"data":{"object":{"id":"form_0aB1cD2eF3gH4iJ5kL6mN7oP","object":"form","name":"Zoë’s demo"}}}';
const V1 = 'e9a8a1369da442a292dac47a564e00aa41ec53bd830f4b61bd3ceabb2410629b';
const V1_OLD = '536468e5276b45e0488f3c0fc5cef086cc86704085abddaf085858a8221cbc50';
const HEADER = `t=${T},v1=${V1}`;

function failureReason(verify: () => unknown): string | undefined {
  try {
    verify();
  } catch (error) {
    if (error instanceof WebhookSignatureError) return error.reason;
    throw error;
  }
  return undefined;
}

describe('signWebhookPayload', () => {
  it('when signing the vector, then the header matches the value OpenSSL computed', () => {
    expect(signWebhookPayload(BODY, SECRET, T)).toBe(HEADER);
  });

  it('when the body is a Buffer or Uint8Array of the same bytes, then the signature is the same', () => {
    expect(signWebhookPayload(Buffer.from(BODY, 'utf8'), SECRET, T)).toBe(HEADER);
    expect(signWebhookPayload(new TextEncoder().encode(BODY), SECRET, T)).toBe(HEADER);
  });

  it('when given two secrets during a rotation, then it emits one v1 per secret, in order', () => {
    expect(signWebhookPayload(BODY, [SECRET, OLD_SECRET], T)).toBe(`t=${T},v1=${V1},v1=${V1_OLD}`);
  });

  it.each([[-1], [1.5], [Number.NaN]])('when the timestamp is %s, then it throws', (t) => {
    expect(() => signWebhookPayload(BODY, SECRET, t)).toThrow(RangeError);
  });

  it('when the secret is empty, then it throws', () => {
    expect(() => signWebhookPayload(BODY, '', T)).toThrow(TypeError);
  });
});

describe('verifyWebhookSignature', () => {
  it('when the header matches, then the parsed event is returned', () => {
    expect(verifyWebhookSignature(BODY, HEADER, SECRET, { now: T })).toEqual(JSON.parse(BODY));
  });

  it('when an event is verified, then it is typed as the contract’s webhook events, narrowed by type', () => {
    const event = verifyWebhookSignature(BODY, HEADER, SECRET, { now: T });
    expectTypeOf(event).toEqualTypeOf<WebhookEvent>();
    expectTypeOf(event.type).toEqualTypeOf<EventType>();
    if (event.type === 'form.created') expectTypeOf(event).toEqualTypeOf<Schema<'FormCreatedEvent'>>();
    expect(event.type).toBe('form.created');
  });

  it('when the raw body is a Buffer or Uint8Array, then it verifies and decodes as UTF-8', () => {
    const event = verifyWebhookSignature(Buffer.from(BODY), HEADER, SECRET, { now: T });
    expect(event).toMatchObject({ data: { object: { name: 'Zoë’s demo' } } });
    expect(verifyWebhookSignature(new TextEncoder().encode(BODY), HEADER, SECRET, { now: T })).toEqual(event);
  });

  it('when one byte of the body is changed, then no_matching_signature', () => {
    const tampered = BODY.replace('"test":false', '"test":true ');
    expect(failureReason(() => verifyWebhookSignature(tampered, HEADER, SECRET, { now: T }))).toBe('no_matching_signature');
  });

  it('when the body was re-serialised (whitespace changed), then no_matching_signature', () => {
    const reserialised = JSON.stringify(JSON.parse(BODY), null, 2);
    expect(failureReason(() => verifyWebhookSignature(reserialised, HEADER, SECRET, { now: T }))).toBe('no_matching_signature');
  });

  it('when the secret is wrong, then no_matching_signature', () => {
    expect(failureReason(() => verifyWebhookSignature(BODY, HEADER, `${SECRET}x`, { now: T }))).toBe('no_matching_signature');
  });

  it('when the timestamp in the header was changed, then no_matching_signature', () => {
    expect(failureReason(() => verifyWebhookSignature(BODY, `t=${T + 1},v1=${V1}`, SECRET, { now: T }))).toBe('no_matching_signature');
  });

  it('when the signature is 301 s old, then timestamp_out_of_tolerance; at 300 s it still passes', () => {
    expect(failureReason(() => verifyWebhookSignature(BODY, HEADER, SECRET, { now: T + 301 }))).toBe('timestamp_out_of_tolerance');
    expect(failureReason(() => verifyWebhookSignature(BODY, HEADER, SECRET, { now: T + 300 }))).toBeUndefined();
  });

  it('when the signature is dated 301 s in the future, then timestamp_out_of_tolerance', () => {
    expect(failureReason(() => verifyWebhookSignature(BODY, HEADER, SECRET, { now: T - 301 }))).toBe('timestamp_out_of_tolerance');
  });

  it('when toleranceSeconds is narrowed, then it applies', () => {
    expect(failureReason(() => verifyWebhookSignature(BODY, HEADER, SECRET, { now: T + 31, toleranceSeconds: 30 }))).toBe(
      'timestamp_out_of_tolerance',
    );
  });

  it('when no clock is given, then the system clock is used', () => {
    const now = Math.floor(Date.now() / 1000);
    const fresh = signWebhookPayload(BODY, SECRET, now);
    expect(failureReason(() => verifyWebhookSignature(BODY, fresh, SECRET))).toBeUndefined();
    expect(failureReason(() => verifyWebhookSignature(BODY, HEADER, SECRET))).toBe('timestamp_out_of_tolerance');
  });

  it('when the header carries two v1 values during a rotation, then a receiver holding either secret accepts it', () => {
    const rotated = `t=${T},v1=${V1_OLD},v1=${V1}`;
    expect(failureReason(() => verifyWebhookSignature(BODY, rotated, SECRET, { now: T }))).toBeUndefined();
    expect(failureReason(() => verifyWebhookSignature(BODY, rotated, OLD_SECRET, { now: T }))).toBeUndefined();
    expect(failureReason(() => verifyWebhookSignature(BODY, rotated, 'whsec_other', { now: T }))).toBe('no_matching_signature');
  });

  it('when the header has spaces after commas and an unknown scheme, then it still verifies', () => {
    const header = `t=${T}, v0=abc, v1=${V1.toUpperCase()}`;
    expect(failureReason(() => verifyWebhookSignature(BODY, header, SECRET, { now: T }))).toBeUndefined();
  });

  it('when Node hands over the header as a one-element array, then it verifies', () => {
    expect(failureReason(() => verifyWebhookSignature(BODY, [HEADER], SECRET, { now: T }))).toBeUndefined();
  });

  it.each([
    ['missing', undefined],
    ['null (Headers.get of an absent header)', null],
    ['empty', ''],
    ['without t', `v1=${V1}`],
    ['without v1', `t=${T}`],
    ['with only an unknown scheme', `t=${T},v0=${V1}`],
    ['with a non-numeric t', `t=17000abc,v1=${V1}`],
    ['with a negative t', `t=-1,v1=${V1}`],
    ['with two t values', `t=${T},t=${T},v1=${V1}`],
    ['with a short v1', `t=${T},v1=${V1.slice(0, 63)}`],
    ['with a non-hex v1', `t=${T},v1=${'z'.repeat(64)}`],
    ['with an element that is not key=value', `t=${T},v1=${V1},garbage`],
    ['with an empty element', `t=${T},,v1=${V1}`],
    ['with an equals sign inside a value', `t=${T},v1=${V1}=`],
    ['in another format altogether', `sha256=${V1}`],
    ['sent twice (Node gives an array)', [HEADER, HEADER]],
    ['an empty array', []],
  ])('when the header is %s, then malformed_header', (_, header) => {
    expect(failureReason(() => verifyWebhookSignature(BODY, header, SECRET, { now: T }))).toBe('malformed_header');
  });

  it('when verification fails, then the error is a WebhookSignatureError that does not reveal the expected signature', () => {
    let thrown: unknown;
    try {
      verifyWebhookSignature(BODY, `t=${T},v1=${'0'.repeat(64)}`, SECRET, { now: T });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WebhookSignatureError);
    expect(thrown).toMatchObject({ name: 'WebhookSignatureError', reason: 'no_matching_signature' });
    expect((thrown as Error).message).not.toContain(V1);
  });
});
