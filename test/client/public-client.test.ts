import { describe, expect, expectTypeOf, it } from 'vitest';
import { createPublicClient, type FormFunnelPublicClient, unwrap } from '../../src/client/index.js';
import { FORM_ID, fakeFetch, json, recordingSleep } from './fake-transport.js';

const PUBLISHABLE_KEY = 'svc_pub_live_4fGh8JkL2mN5bV7cX9zQ1wE3';
const SUBMISSION_ID = 'sub_9pLk3JhG6fDs1AzX4cVb7NmQ';

const submitted = () =>
  json(201, {
    object: 'public_submission',
    id: SUBMISSION_ID,
    form_id: FORM_ID,
    status: 'partial',
    resume_token: `srt_${'a'.repeat(40)}`,
    resume_expires_at: '2026-12-05T09:00:00.000Z',
    request_id: 'req_0aB1cD2eF3gH4iJ5kL6mN7oP',
  });

describe('createPublicClient', () => {
  it('when a page submits, then the publishable key goes as Bearer, with an Idempotency-Key, to the public path', async () => {
    const transport = fakeFetch(submitted);
    const client = createPublicClient({ publishableKey: PUBLISHABLE_KEY, baseUrl: 'https://api.example/v1', fetch: transport.fetch });
    const created = unwrap(
      await client.POST('/public/submissions', {
        body: { form_id: FORM_ID, answers: { email: 'tom@brightdesk.example' }, status: 'partial' },
      }),
    );
    expect(created.resume_token).toMatch(/^srt_/);
    const [request] = transport.requests;
    expect(request?.url).toBe('https://api.example/v1/public/submissions');
    expect(request?.headers.get('Authorization')).toBe(`Bearer ${PUBLISHABLE_KEY}`);
    expect(request?.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('when a resume is retried after a network failure, then the same Idempotency-Key is sent again', async () => {
    const transport = fakeFetch(
      () => {
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) });
      },
      () => json(200, { object: 'public_submission', id: SUBMISSION_ID, form_id: FORM_ID, status: 'completed', resume_expires_at: null }),
    );
    const { sleep } = recordingSleep();
    const client = createPublicClient({ publishableKey: PUBLISHABLE_KEY, fetch: transport.fetch, sleep, random: () => 1 });
    await client.PATCH('/public/submissions/{id}', {
      params: { path: { id: SUBMISSION_ID } },
      body: { resume_token: `srt_${'a'.repeat(40)}`, status: 'completed' },
    });
    const keys = transport.requests.map((request) => request.headers.get('Idempotency-Key'));
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
  });

  it.each([
    ['a secret live key', 'svc_live_4eC39HqLyjWDarjtT1zdp7dc4eC39HqLyjWD'],
    ['a secret test key', 'svc_test_4eC39HqLyjWDarjtT1zdp7dc4eC39HqLyjWD'],
    ['an OAuth token', 'svc_oat_4eC39HqLyjWDarjtT1zdp7dc4eC39HqLyjWD'],
    ['nothing', ''],
    ['a key with a trailing newline', `${PUBLISHABLE_KEY}\n`],
  ])('when it is given %s, then creating it throws before any request, without echoing the key', (_, publishableKey) => {
    const transport = fakeFetch();
    expect(() => createPublicClient({ publishableKey, fetch: transport.fetch })).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/publishable key/) }),
    );
    expect(() => createPublicClient({ publishableKey, fetch: transport.fetch })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(publishableKey || 'never-empty') }),
    );
    expect(transport.requests).toHaveLength(0);
  });

  it('when it is typed, then it offers the public paths only', () => {
    expectTypeOf<Parameters<FormFunnelPublicClient['GET']>[0]>().toEqualTypeOf<'/public/forms/{id}'>();
  });
});
