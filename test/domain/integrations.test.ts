/**
 * The pieces of the integrations module that need no server: the webhook URL rules (SSRF), the retry
 * schedule, failure texts, the publisher's envelope, and the facts shared with the document.
 */
import { describe, expect, it } from 'vitest';
import { describeNetworkFailure } from '../../src/adapters/webhook-transport.js';
import { definitionEnvironments } from '../../src/domain/access.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { defaultCircuitPolicy, disabledNow, nextCircuitState } from '../../src/domain/integrations/circuit-breaker.js';
import { integrationEvents } from '../../src/domain/integrations/publisher.js';
import { DELIVERY_TIMEOUT_MS, defaultBackoff, MAX_ATTEMPTS, retryDelayMs } from '../../src/domain/integrations/retry-schedule.js';
import { INTEGRATION_ISSUE_CODES } from '../../src/domain/integrations/service.js';
import { generateSigningSecret, signingSecretHint } from '../../src/domain/integrations/signing-secret.js';
import { addressRefusal, checkWebhookUrl, type ResolvedAddress } from '../../src/domain/integrations/webhook-url.js';
import type { CircuitState } from '../../src/store/integration-store.js';
import { numberAt, textAt } from '../support/openapi-files.js';

const resolver =
  (table: Record<string, string[]>) =>
  async (hostname: string): Promise<ResolvedAddress[]> => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
const strict = {
  allowPrivateAddresses: false,
  resolveHost: resolver({ 'api.example.com': ['93.184.215.14'], 'lan.example.com': ['192.168.0.10'], 'empty.example.com': [] }),
};
const permissive = { ...strict, allowPrivateAddresses: true };

describe('checkWebhookUrl', () => {
  it('when the URL is https on a public host, then it passes with the addresses to connect to', async () => {
    expect(await checkWebhookUrl('https://api.example.com/hook', strict)).toEqual({
      ok: true,
      addresses: [{ address: '93.184.215.14', family: 4 }],
    });
    expect(await checkWebhookUrl('https://[2606:4700::1111]/hook', strict)).toMatchObject({ ok: true });
  });

  it.each([
    'http://api.example.com/hook',
    'ftp://api.example.com/',
    'not a url',
    'https://empty.example.com/',
    'https://unknown.example.com/',
  ])('when the URL is %s, then it is refused', async (url) => {
    expect(await checkWebhookUrl(url, strict)).toMatchObject({ ok: false });
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.1.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.1.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::', '6to4'],
    ['::a00:1', 'IPv4-compatible'],
    ['::7f00:1', 'IPv4-compatible'],
  ])('when an address is %s, then it is refused as %s', (address, range) => {
    expect(addressRefusal(address, { allowPrivateAddresses: false })).toContain(range);
  });

  it('when the operator allows private URLs, then loopback, private and link-local pass, but multicast and unspecified do not', async () => {
    for (const address of ['127.0.0.1', '10.0.0.1', '192.168.1.1', '::1', 'fd00::1', '169.254.1.1']) {
      expect(addressRefusal(address, { allowPrivateAddresses: true })).toBeNull();
    }
    for (const address of ['0.0.0.0', '224.0.0.1', '::', 'ff02::1']) {
      expect(addressRefusal(address, { allowPrivateAddresses: true })).not.toBeNull();
    }
    expect(await checkWebhookUrl('https://lan.example.com/', permissive)).toMatchObject({ ok: true });
    expect(await checkWebhookUrl('https://lan.example.com/', strict)).toMatchObject({ ok: false });
    expect(await checkWebhookUrl('http://127.0.0.1/', permissive)).toMatchObject({ ok: false });
  });

  it('when an IP literal is given, then DNS is not asked', async () => {
    let asked = 0;
    const counting = {
      allowPrivateAddresses: false,
      resolveHost: async () => {
        asked++;
        return [];
      },
    };
    await checkWebhookUrl('https://93.184.215.14/', counting);
    await checkWebhookUrl('https://[::1]/', counting);
    expect(asked).toBe(0);
  });
});

describe('retryDelayMs', () => {
  it('when random is at its top, then each delay doubles up to the cap', () => {
    const top = () => 0.999_999;
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempt) => retryDelayMs(attempt, defaultBackoff, top)!);
    for (let i = 1; i < delays.length; i++) expect(delays[i]! / delays[i - 1]!).toBeCloseTo(2, 3);
    expect(retryDelayMs(7, { baseMs: 1_000, capMs: 10_000, minMs: 0 }, top)).toBeLessThanOrEqual(10_000);
  });

  it('when random is 0, then the delay is the minimum: full jitter never retries at once', () => {
    expect(retryDelayMs(1, defaultBackoff, () => 0)).toBe(defaultBackoff.minMs);
  });

  it('when the 8th attempt failed, then there is no next one', () => {
    expect(retryDelayMs(MAX_ATTEMPTS, defaultBackoff, () => 0.5)).toBeNull();
    expect(retryDelayMs(MAX_ATTEMPTS - 1, defaultBackoff, () => 0.5)).not.toBeNull();
  });
});

describe('describeNetworkFailure', () => {
  it.each([
    [{ code: 'DELIVERY_TIMEOUT' }, 'No answer within 10 seconds.'],
    [{ code: 'ECONNREFUSED' }, 'The connection was refused.'],
    [{ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }, 'TLS error: DEPTH_ZERO_SELF_SIGNED_CERT.'],
    [new Error('secret-bearing message whsec_abc'), 'The request failed.'],
  ])('when the error is %o, then the log says %s (never the library message)', (error, text) => {
    expect(describeNetworkFailure(error, DELIVERY_TIMEOUT_MS)).toBe(text);
  });
});

describe('nextCircuitState', () => {
  const T0 = Date.parse('2026-11-04T10:00:00.000Z');
  const closed: CircuitState = {
    consecutiveFailures: 0,
    failingSince: null,
    pausedUntil: null,
    enabled: true,
    disabledAt: null,
    disabledReason: null,
    updatedAt: '2026-11-01T00:00:00.000Z',
  };
  const at = (ms: number) => new Date(T0 + ms);
  /** The state after `count` failures, `gapMs` apart, starting at T0. */
  const failures = (count: number, gapMs: number, from: CircuitState = closed) => {
    let state = from;
    for (let i = 0; i < count; i++) state = nextCircuitState(state, 'failed', at(i * gapMs));
    return state;
  };

  it('when fewer failures than the threshold occur in a row, then nothing is paused, and the run remembers its start', () => {
    const state = failures(defaultCircuitPolicy.pauseAfterFailures - 1, 1_000);
    expect(state).toMatchObject({ consecutiveFailures: 4, failingSince: at(0).toISOString(), pausedUntil: null, enabled: true });
  });

  it('when the threshold is reached, then the pause is 1 minute, doubling with each further failure up to 1 hour', () => {
    const pauses = [5, 6, 7, 12, 13].map((count) => {
      const state = failures(count, 0);
      return Date.parse(state.pausedUntil!) - T0;
    });
    expect(pauses).toEqual([60_000, 120_000, 240_000, 3_600_000, 3_600_000]);
  });

  it('when an attempt succeeds, then the breaker closes and the run starts over', () => {
    const state = nextCircuitState(failures(7, 1_000), 'succeeded', at(10_000));
    expect(state).toEqual(closed);
  });

  it('when failures have lasted 3 days but fewer than 20 in a row, then the integration stays enabled', () => {
    const state = nextCircuitState(failures(18, 1_000), 'failed', at(3 * 86_400_000));
    expect(state.enabled).toBe(true);
  });

  it('when 20 failures in a row have lasted 3 days, then the integration is disabled, once, with the reason', () => {
    const gap = Math.ceil((3 * 86_400_000) / 19);
    const before = failures(19, gap);
    expect(before.enabled).toBe(true);
    const after = nextCircuitState(before, 'failed', at(19 * gap));
    expect(after).toMatchObject({ enabled: false, disabledAt: at(19 * gap).toISOString(), disabledReason: 'delivery_failures' });
    expect(after.updatedAt).toBe(after.disabledAt);
    expect(disabledNow(before, after)).toBe(true);
    const again = nextCircuitState(after, 'failed', at(20 * gap));
    expect(again.disabledAt).toBe(after.disabledAt);
    expect(disabledNow(after, again)).toBe(false);
  });

  it('when a person has disabled the integration, then failures of dispatches never mark it disabled by the service', () => {
    const state = failures(40, 86_400_000, { ...closed, enabled: false });
    expect(state).toMatchObject({ enabled: false, disabledAt: null, disabledReason: null });
  });
});

describe('integrationEvents', () => {
  const event: DomainEvent = {
    workspaceId: 'ws_1',
    environment: 'test',
    type: 'form.created',
    formId: 'form_1',
    data: { object: { id: 'form_1' } },
  };

  it("when an event goes into its change's outbox, then its body is the envelope, test mode reaching live and test integrations as mocks", () => {
    const publisher = integrationEvents({ now: () => new Date('2026-01-02T03:04:05.678Z') });
    const entry = publisher.outboxEvent(event);
    expect(entry).toBeDefined();
    const { event: record, subscribers } = entry!;
    expect(JSON.parse(record.body)).toEqual({
      id: record.id,
      object: 'event',
      type: 'form.created',
      created_at: '2026-01-02T03:04:05.678Z',
      test: true,
      data: event.data,
    });
    expect(record).toMatchObject({ workspaceId: 'ws_1', environment: 'test', formId: 'form_1' });
    expect(subscribers).toEqual({ environments: ['live', 'test'], mock: true });
    expect(definitionEnvironments('live')).toEqual(['live']);
  });
});

describe('the integrations module agrees with the OpenAPI document', () => {
  it("when attempts are counted, then the limit is IntegrationLog.attempt's maximum", () => {
    expect(MAX_ATTEMPTS).toBe(numberAt('components/schemas/IntegrationLog', 'properties', 'attempt', 'maximum'));
  });

  it("when an attempt times out, then the timeout is IntegrationLog.duration_ms's maximum", () => {
    expect(DELIVERY_TIMEOUT_MS).toBe(numberAt('components/schemas/IntegrationLog', 'properties', 'duration_ms', 'maximum'));
  });

  it('when a signing secret is issued, then it and its hint match the documented patterns', () => {
    const secret = generateSigningSecret();
    const created = ['content', 'application/json', 'schema', 'allOf', '1', 'properties', 'signing_secret'];
    expect(secret).toMatch(new RegExp(textAt('components/responses/IntegrationCreated', ...created, 'pattern')));
    expect(secret.length).toBeLessThanOrEqual(numberAt('components/responses/IntegrationCreated', ...created, 'maxLength'));
    expect(signingSecretHint(secret)).toMatch(new RegExp(textAt('components/schemas/Integration', 'properties', 'secret_hint', 'pattern')));
  });

  it("when the circuit breaker's numbers change, then Integration.enabled's description states the new ones", () => {
    const description = textAt('components/schemas/Integration', 'properties', 'enabled', 'description').replace(/\s+/g, ' ');
    const policy = defaultCircuitPolicy;
    expect(description).toContain(`after ${policy.pauseAfterFailures} failed attempts in a row`);
    expect(description).toContain(
      `(${policy.basePauseMs / 60_000} minute, doubling with each further failure, at most ${policy.maxPauseMs / 3_600_000} hour)`,
    );
    expect(description).toContain(
      `for ${policy.disableAfterMs / 86_400_000} days (and at least ${policy.disableAfterFailures} times in a row)`,
    );
  });

  it('when the module reports an issue code, then ValidationIssue.code documents it ', () => {
    // Pending: to be added to ValidationIssue.code's description; this list then shrinks to empty.
    const description: string = textAt('components/schemas/ValidationIssue', 'properties', 'code', 'description');
    const documented = new Set([...description.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]));
    expect(INTEGRATION_ISSUE_CODES.filter((code) => !documented.has(code))).toEqual([]);
  });
});
