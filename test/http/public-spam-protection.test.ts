/**
 * What guards the public operations: a form's spam protection (honeypot, minimum completion time, proof of work
 * with replays refused), the per-address limit counted before anything else, and CORS granted to a key's own
 * origins only (never on the secret-key operations). The HTTP suite runs on both stores.
 */
import { type Challenge, solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import request, { type Response } from 'supertest';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { STARTED_TOKEN_LIFETIME_DAYS } from '../../src/domain/public/started-token.js';
import { StoreUnavailable } from '../../src/store/errors.js';
import { createForm } from '../support/factories.js';
import { expectProblem, generousLimits, issuesOf, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey, type PublishableKey, respelledStartedToken } from '../support/publishable-keys.js';
import { demoForm, testClock } from './submissions-support.js';

// Challenges expire by the system clock too (altcha-lib reads it), so this file's clock starts at the real time.
const start = new Date(Math.floor(Date.now() / 1000) * 1000);
const at = (seconds: number) => new Date(start.getTime() + seconds * 1000).toISOString();
const today = start.toISOString().slice(0, 10);
const clock = testClock(start.toISOString());
const api = useWatchedApi(() => ({ now: clock.now, rateLimits: generousLimits }));
const origin = 'https://www.acme.example';
let key: PublishableKey;
let testKey: PublishableKey;

const contact = { full_name: 'Tom Okafor', email: 'tom@brightdesk.example' };
/** The rest of the demo form's required answers, for a completed submission. */
const complete = { company_size: '201_plus', has_budget: false, gdpr: true };
const publicPost = (body: object, value = key.value) => api.call('post', '/v1/public/submissions', value).send(body);
const startedToken = async (formId: string): Promise<string> =>
  (await api.call('get', `/v1/public/forms/${formId}`, key.value)).body.started_token;
const submissionsOf = async (formId: string) => (await api.call('get', `/v1/submissions?form_id=${formId}`)).body.data as unknown[];

/** What a page does: fetch a challenge, solve it, and encode the solution as the ALTCHA widget does. */
async function solvedChallenge(value = key.value): Promise<string> {
  const res = await api.call('post', '/v1/public/challenges', value);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const { parameters, signature } = res.body as Challenge;
  const solution = await solveChallenge({ challenge: { parameters, signature }, deriveKey });
  return Buffer.from(JSON.stringify({ challenge: { parameters, signature }, solution })).toString('base64');
}

beforeAll(async () => {
  key = await createPublishableKey(api, { environment: 'live', allowed_origins: [origin] });
  testKey = await createPublishableKey(api, { environment: 'test', allowed_origins: ['http://localhost:3000'] });
});

describe('spam_protection on forms', () => {
  it('when a form is created without it, then it is off; when set, then it is read back and replaced whole on update', async () => {
    const plain = await createForm(api, demoForm());
    expect(plain.spam_protection).toEqual({ honeypot_field: null, min_completion_seconds: 0, proof_of_work: false });
    const guarded = await createForm(api, demoForm({ spam_protection: { honeypot_field: 'website', proof_of_work: true } }));
    expect(guarded.spam_protection).toEqual({ honeypot_field: 'website', min_completion_seconds: 0, proof_of_work: true });
    expect((await api.call('get', `/v1/forms/${guarded.id}`)).body.spam_protection).toEqual(guarded.spam_protection);
    const updated = await api.call('patch', `/v1/forms/${guarded.id}`).send({ spam_protection: { min_completion_seconds: 3 } });
    expect(updated.body.spam_protection).toEqual({ honeypot_field: null, min_completion_seconds: 3, proof_of_work: false });
    const page = await api.call('get', `/v1/public/forms/${guarded.id}`, key.value);
    expect(page.body.spam_protection).toEqual({ honeypot_field: null, proof_of_work: false });
  });

  it('when the honeypot is named like a field of the form, then 422 invalid_form names it', async () => {
    const res = await api.call('post', '/v1/forms').send(demoForm({ spam_protection: { honeypot_field: 'email' } }));
    expectProblem(res, 422, 'validation_error', 'invalid_form');
    expect(issuesOf(res)).toEqual(['body /spam_protection/honeypot_field honeypot_is_a_field']);
  });
});

describe('the honeypot', () => {
  it('when a bot fills it in, then it gets an ordinary 201, nothing is stored and analytics count it as spam', async () => {
    const form = await createForm(api, demoForm({ spam_protection: { honeypot_field: 'website' } }));
    const bot = await publicPost({ form_id: form.id, answers: { ...contact, website: 'http://cheap.example' }, status: 'partial' });
    expect(bot.status, JSON.stringify(bot.body)).toBe(201);
    expect(bot.body).toMatchObject({ object: 'public_submission', id: expect.stringMatching(/^sub_/), status: 'partial' });
    expect(await submissionsOf(form.id)).toEqual([]);

    const person = await publicPost({ form_id: form.id, answers: { ...contact, website: '' }, status: 'partial' });
    expect(person.status, JSON.stringify(person.body)).toBe(201);
    expect(await submissionsOf(form.id)).toHaveLength(1);
    const stored = await api.call('get', `/v1/submissions/${person.body.id}`);
    expect(stored.body.answers).toEqual(contact);

    const analytics = await api.call('get', `/v1/analytics?form_id=${form.id}&from=${today}&to=${today}`);
    expect(analytics.body).toMatchObject({ spam: 1, submissions: { started: 1 } });
    const testAnalytics = await api.call('get', `/v1/analytics?form_id=${form.id}&from=${today}&to=${today}`, api.workspace.test_admin_key);
    expect(testAnalytics.body.spam).toBe(0);
  });
});

describe('a caught submission looks like a real one to the end', () => {
  /**
   * What a page sees of an answer, with what differs between any two submissions made the same
   * (ids, tokens, times, the counters of the limits) written as placeholders.
   */
  function observed(res: Response, known: { id: string; token?: string | null }) {
    const volatile = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'etag', 'content-length']);
    const mask = (text: string) => {
      let masked = text.replaceAll(known.id, '<id>').replace(/req_[0-9A-Za-z]+/g, '<request>');
      if (known.token) masked = masked.replaceAll(known.token, '<token>');
      return masked;
    };
    const headers = Object.fromEntries(
      Object.entries(res.headers)
        .filter(([name]) => !volatile.has(name))
        .map(([name, value]) => [name, mask(String(value))]),
    );
    return { status: res.status, headerNames: Object.keys(res.headers).sort(), headers, body: JSON.parse(mask(JSON.stringify(res.body))) };
  }

  /** A page's whole life with one submission: created, continued, refused, completed, then refused as completed. */
  async function lifeOf(form: string, answers: object) {
    const created = await publicPost({ form_id: form, answers, status: 'partial' });
    const known = { id: created.body.id as string, token: created.body.resume_token as string };
    const patch = (body: object, value = key.value) => api.call('patch', `/v1/public/submissions/${known.id}`, value).send(body);
    const resume_token = known.token;
    const steps = [
      created,
      await patch({ resume_token, answers: { company_size: '1_10' } }),
      await patch({ resume_token }),
      await patch({ resume_token: `srt_${'Z'.repeat(40)}`, answers: {} }),
      await patch({ resume_token, answers: {} }, testKey.value),
      await patch({ resume_token, answers: { email: 'tom at brightdesk', no_such_field: 'x' } }),
      await patch({ resume_token, answers: { has_budget: false, gdpr: true }, status: 'completed' }),
      await patch({ resume_token }),
      await patch({ resume_token, status: 'completed' }),
      await patch({ resume_token, answers: { notes: 'again' } }),
    ];
    return steps.map((res) => observed(res, known));
  }

  it('when a partial submission is caught, then every answer its page gets matches a real one’s, and nothing is stored', async () => {
    const form = await createForm(api, demoForm({ spam_protection: { honeypot_field: 'website' } }));
    const real = await lifeOf(form.id, { ...contact, website: '' });
    const caught = await lifeOf(form.id, { ...contact, website: 'http://cheap.example' });
    expect(real.map((step) => step.status)).toEqual([201, 200, 200, 403, 404, 422, 200, 409, 409, 409]);
    expect(caught).toEqual(real);
    expect(real[0]!.headers.location).toBe('/v1/public/submissions/<id>');
    expect(real[5]!.body).toMatchObject({ code: 'invalid_answers' });
    expect(real[6]!.body).toMatchObject({ status: 'completed', resume_expires_at: null });
    const stored = (await submissionsOf(form.id)) as Array<{ status: string }>;
    expect(stored.map((submission) => submission.status)).toEqual(['completed']);
    const analytics = await api.call('get', `/v1/analytics?form_id=${form.id}&from=${today}&to=${today}`);
    expect(analytics.body).toMatchObject({ spam: 1, submissions: { started: 1, completed: 1 } });
  });

  it('when a completed submission is caught, then a PATCH of it is refused as a real one’s: 403 invalid_resume_token', async () => {
    const form = await createForm(api, demoForm({ spam_protection: { honeypot_field: 'website' } }));
    const lives = [];
    for (const website of ['', 'http://cheap.example']) {
      const created = await publicPost({ form_id: form.id, answers: { ...contact, ...complete, website } });
      const patched = await api
        .call('patch', `/v1/public/submissions/${created.body.id}`, key.value)
        .send({ resume_token: `srt_${'Y'.repeat(40)}` });
      expectProblem(patched, 403, 'permission_error', 'invalid_resume_token');
      lives.push([created, patched].map((res) => observed(res, { id: created.body.id, token: null })));
    }
    expect(lives[1]).toEqual(lives[0]);
    expect(await submissionsOf(form.id)).toHaveLength(1);
  });

  it('when a caught submission is also too fast or its answers are invalid, then it is refused as a real one is, and not counted', async () => {
    const form = await createForm(api, demoForm({ spam_protection: { honeypot_field: 'website', min_completion_seconds: 5 } }));
    const token = await startedToken(form.id);
    const refusals = async (answers: object, seconds: number) => {
      clock.set(at(seconds));
      const sent = { form_id: form.id, answers, status: 'partial', started_token: token };
      return Promise.all(
        ['', 'http://cheap.example'].map(async (website) =>
          observed(await publicPost({ ...sent, answers: { ...answers, website } }), { id: form.id }),
        ),
      );
    };
    try {
      const [realEarly, caughtEarly] = await refusals(contact, 2);
      expect(realEarly!.body).toMatchObject({ code: 'submitted_too_fast' });
      expect(caughtEarly).toEqual(realEarly);
      const [realInvalid, caughtInvalid] = await refusals({ ...contact, email: 'tom at brightdesk' }, 6);
      expect(realInvalid!.body).toMatchObject({ code: 'invalid_answers' });
      expect(caughtInvalid).toEqual(realInvalid);
    } finally {
      clock.set(at(0));
    }
    expect(await submissionsOf(form.id)).toEqual([]);
    const analytics = await api.call('get', `/v1/analytics?form_id=${form.id}&from=${today}&to=${today}`);
    expect(analytics.body).toMatchObject({ spam: 0 });
  });

  it('when a caught submission’s started token or challenge is sent again, then it is refused as after a real submission', async () => {
    const form = await createForm(
      api,
      demoForm({ spam_protection: { honeypot_field: 'website', min_completion_seconds: 5, proof_of_work: true } }),
    );
    const token = await startedToken(form.id);
    const solved = await solvedChallenge();
    clock.set(at(5));
    try {
      const bot = await publicPost({
        form_id: form.id,
        answers: { ...contact, website: 'x' },
        status: 'partial',
        started_token: token,
        challenge: solved,
      });
      expect(bot.status).toBe(201);
      const again = await publicPost({ form_id: form.id, answers: contact, status: 'partial', started_token: token, challenge: solved });
      expectProblem(again, 422, 'validation_error', 'challenge_invalid');
      expect(issuesOf(again)).toEqual(['body /challenge already_used']);
      const fresh = await solvedChallenge();
      expect(
        issuesOf(await publicPost({ form_id: form.id, answers: contact, status: 'partial', started_token: token, challenge: fresh })),
      ).toEqual(['body /started_token already_used']);
      expect(await submissionsOf(form.id)).toEqual([]);
    } finally {
      clock.set(at(0));
    }
  });
});

describe('the minimum completion time', () => {
  it('when a page submits sooner than the form allows, or without its started token, then 422 submitted_too_fast', async () => {
    const form = await createForm(api, demoForm({ spam_protection: { min_completion_seconds: 5 } }));
    const token = await startedToken(form.id);
    const body = { form_id: form.id, answers: contact, status: 'partial', started_token: token };
    clock.set(at(4));
    const early = await publicPost(body);
    expectProblem(early, 422, 'validation_error', 'submitted_too_fast');
    expect(issuesOf(early)).toEqual(['body /started_token too_fast']);
    expectProblem(await publicPost({ ...body, started_token: undefined }), 422, 'validation_error', 'submitted_too_fast');
    const forged = token.replace(/^\d{13}/, String(Date.parse(at(-3600))));
    expect(issuesOf(await publicPost({ ...body, started_token: forged }))).toEqual(['body /started_token invalid']);
    clock.set(at(5));
    expect((await publicPost(body)).status).toBe(201);
    clock.set(at(0));
  });
});

describe('the started token: one wait, one submission', () => {
  const timedForm = () => createForm(api, demoForm({ spam_protection: { min_completion_seconds: 5 } }));

  it('when the store fails to insert a submission after its claims were spent, then the retry spends them again and is stored', async () => {
    const form = await createForm(api, demoForm({ spam_protection: { min_completion_seconds: 5, proof_of_work: true } }));
    const sent = {
      form_id: form.id,
      answers: contact,
      status: 'partial',
      started_token: await startedToken(form.id),
      challenge: await solvedChallenge(),
    };
    clock.set(at(5));
    const insert = vi.spyOn(api.store.submissions, 'insert').mockRejectedValueOnce(new StoreUnavailable('connection_lost'));
    try {
      expectProblem(await publicPost(sent), 503, 'server_error', 'service_unavailable');
      expect(insert).toHaveBeenCalledTimes(1);
      const retried = await publicPost(sent);
      expect(retried.status, JSON.stringify(retried.body)).toBe(201);
      expect(await submissionsOf(form.id)).toHaveLength(1);
      // Stored now: spent for good.
      expect(issuesOf(await publicPost(sent))).toEqual(['body /challenge already_used']);
    } finally {
      insert.mockRestore();
      clock.set(at(0));
    }
  });

  it('when a started token timed a stored submission, then any later submission with it is 422 submitted_too_fast already_used', async () => {
    const form = await timedForm();
    const token = await startedToken(form.id);
    clock.set(at(5));
    try {
      const first = await publicPost({ form_id: form.id, answers: contact, status: 'partial', started_token: token });
      expect(first.status, JSON.stringify(first.body)).toBe(201);
      for (const status of ['partial', 'completed']) {
        const again = await publicPost({ form_id: form.id, answers: { ...contact, ...complete }, status, started_token: token });
        expectProblem(again, 422, 'validation_error', 'submitted_too_fast');
        expect(issuesOf(again)).toEqual(['body /started_token already_used']);
        expect(again.body.message).toContain(`GET /public/forms/${form.id}`);
      }
      // The same token spelled otherwise (an unused bit of its last character) is no new token.
      const respelled = await publicPost({
        form_id: form.id,
        answers: contact,
        status: 'partial',
        started_token: respelledStartedToken(token),
      });
      expectProblem(respelled, 422, 'validation_error', 'submitted_too_fast');
      expect(issuesOf(respelled)).toEqual(['body /started_token invalid']);
      const fresh = await startedToken(form.id);
      clock.set(at(10));
      const next = await publicPost({ form_id: form.id, answers: { ...contact, ...complete }, started_token: fresh });
      expect(next.status, JSON.stringify(next.body)).toBe(201);
      expect(await submissionsOf(form.id)).toHaveLength(2);
    } finally {
      clock.set(at(0));
    }
  });

  it('when a submission with a started token is refused (too fast, or its answers), then the token stays unspent', async () => {
    const form = await timedForm();
    const token = await startedToken(form.id);
    clock.set(at(4));
    try {
      expect(issuesOf(await publicPost({ form_id: form.id, answers: contact, started_token: token }))).toEqual([
        'body /started_token too_fast',
      ]);
      clock.set(at(6));
      const invalid = await publicPost({ form_id: form.id, answers: contact, status: 'completed', started_token: token });
      expectProblem(invalid, 422, 'validation_error', 'invalid_answers');
      const fixed = await publicPost({ form_id: form.id, answers: { ...contact, ...complete }, started_token: token });
      expect(fixed.status, JSON.stringify(fixed.body)).toBe(201);
    } finally {
      clock.set(at(0));
    }
  });

  it('when submissions with one started token race, then exactly one is stored and the others are refused', async () => {
    const form = await timedForm();
    const token = await startedToken(form.id);
    clock.set(at(5));
    try {
      const body = { form_id: form.id, answers: contact, status: 'partial', started_token: token };
      const racing = await Promise.all([1, 2, 3, 4].map(() => publicPost(body)));
      expect(racing.map((res) => res.status).sort()).toEqual([201, 422, 422, 422]);
      for (const res of racing.filter((res) => res.status === 422)) expect(issuesOf(res)).toEqual(['body /started_token already_used']);
      expect(await submissionsOf(form.id)).toHaveLength(1);
    } finally {
      clock.set(at(0));
    }
  });

  it(`when a started token is ${STARTED_TOKEN_LIFETIME_DAYS} days old, then it has expired: 422 submitted_too_fast expired`, async () => {
    const form = await timedForm();
    const older = await startedToken(form.id);
    const lifetime = STARTED_TOKEN_LIFETIME_DAYS * 86_400;
    try {
      clock.set(at(1));
      const newer = await startedToken(form.id);
      clock.set(at(lifetime));
      const late = await publicPost({ form_id: form.id, answers: contact, status: 'partial', started_token: older });
      expectProblem(late, 422, 'validation_error', 'submitted_too_fast');
      expect(issuesOf(late)).toEqual(['body /started_token expired']);
      const inTime = await publicPost({ form_id: form.id, answers: contact, status: 'partial', started_token: newer });
      expect(inTime.status, JSON.stringify(inTime.body)).toBe(201);
    } finally {
      clock.set(at(0));
    }
  });

  it('when the form sets no minimum time, then the started token is not needed nor spent', async () => {
    const form = await createForm(api, demoForm());
    const token = await startedToken(form.id);
    for (let i = 0; i < 2; i++)
      expect((await publicPost({ form_id: form.id, answers: contact, status: 'partial', started_token: token })).status).toBe(201);
  });
});

describe('POST /v1/public/challenges and proof of work', () => {
  it('when a form requires proof of work, then a solved challenge is accepted once, and nothing else', async () => {
    const form = await createForm(api, demoForm({ spam_protection: { proof_of_work: true } }));
    const body = { form_id: form.id, answers: contact, status: 'partial' };
    const missing = await publicPost(body);
    expectProblem(missing, 422, 'validation_error', 'challenge_required');
    expect(issuesOf(missing)).toEqual(['body /challenge required']);

    const solved = await solvedChallenge();
    const accepted = await publicPost({ ...body, challenge: solved });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    const replayed = await publicPost({ ...body, challenge: solved });
    expectProblem(replayed, 422, 'validation_error', 'challenge_invalid');
    expect(issuesOf(replayed)).toEqual(['body /challenge already_used']);
    expect(issuesOf(await publicPost({ ...body, challenge: 'bm90IGEgc29sdXRpb24=' }))).toEqual(['body /challenge malformed']);
    expect(await submissionsOf(form.id)).toHaveLength(1);
  });

  it('when a challenge is solved after its 10 minutes, then it is refused as expired', async () => {
    const form = await createForm(api, demoForm({ spam_protection: { proof_of_work: true } }));
    const solved = await solvedChallenge();
    clock.set(at(601));
    try {
      const late = await publicPost({ form_id: form.id, answers: contact, status: 'partial', challenge: solved });
      expect(issuesOf(late)).toEqual(['body /challenge expired']);
    } finally {
      clock.set(at(0));
    }
  });

  it('when a challenge fetched with another key is sent (another workspace’s, a test key, another key of the workspace), then 422 challenge_invalid', async () => {
    const form = await createForm(api, demoForm({ spam_protection: { proof_of_work: true } }));
    const other = await api.otherWorkspace();
    const foreign = await createPublishableKey(api, { environment: 'live' }, other.live_admin_key);
    const sibling = await createPublishableKey(api, { environment: 'live', allowed_origins: [origin] });
    for (const value of [foreign.value, testKey.value, sibling.value]) {
      const solved = await solvedChallenge(value);
      const res = await publicPost({ form_id: form.id, answers: contact, status: 'partial', challenge: solved });
      expectProblem(res, 422, 'validation_error', 'challenge_invalid');
      expect(issuesOf(res)).toEqual(['body /challenge wrong_solution']);
      expect(res.body.message).toMatch(/this key fetched/);
    }
    expect(await submissionsOf(form.id)).toEqual([]);
    expect((await publicPost({ form_id: form.id, answers: contact, status: 'partial', challenge: await solvedChallenge() })).status).toBe(
      201,
    );
  });

  it('when a submission with a solved challenge is refused for its answers, then the challenge is unspent and the corrected one is accepted', async () => {
    const form = await createForm(api, demoForm({ spam_protection: { proof_of_work: true } }));
    const solved = await solvedChallenge();
    const typo = await publicPost({ form_id: form.id, answers: { ...contact, email: 'tom@' }, status: 'partial', challenge: solved });
    expectProblem(typo, 422, 'validation_error', 'invalid_answers');
    const fixed = await publicPost({ form_id: form.id, answers: contact, status: 'partial', challenge: solved });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(201);
    expect(issuesOf(await publicPost({ form_id: form.id, answers: contact, status: 'partial', challenge: solved }))).toEqual([
      'body /challenge already_used',
    ]);
  });

  it('when a too-fast submission carries a valid challenge, then the challenge is left unspent for the next try', async () => {
    const form = await createForm(api, demoForm({ spam_protection: { proof_of_work: true, min_completion_seconds: 5 } }));
    const token = await startedToken(form.id);
    const solved = await solvedChallenge();
    const body = { form_id: form.id, answers: contact, status: 'partial', started_token: token, challenge: solved };
    clock.set(at(4));
    try {
      expect(issuesOf(await publicPost(body))).toEqual(['body /started_token too_fast']);
      clock.set(at(5));
      const res = await publicPost(body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    } finally {
      clock.set(at(0));
    }
  });

  it('when the started token was spent before, then the challenge sent with it stays unspent', async () => {
    const form = await createForm(api, demoForm({ spam_protection: { proof_of_work: true, min_completion_seconds: 5 } }));
    const token = await startedToken(form.id);
    clock.set(at(5));
    try {
      const first = await publicPost({
        form_id: form.id,
        answers: contact,
        status: 'partial',
        started_token: token,
        challenge: await solvedChallenge(),
      });
      expect(first.status, JSON.stringify(first.body)).toBe(201);
      const solved = await solvedChallenge();
      const reused = await publicPost({ form_id: form.id, answers: contact, status: 'partial', started_token: token, challenge: solved });
      expect(issuesOf(reused)).toEqual(['body /started_token already_used']);
      const fresh = await startedToken(form.id);
      clock.set(at(10));
      const res = await publicPost({ form_id: form.id, answers: contact, status: 'partial', started_token: fresh, challenge: solved });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    } finally {
      clock.set(at(0));
    }
  });

  it('when submissions with one challenge race, then exactly one is stored', async () => {
    const form = await createForm(api, demoForm({ spam_protection: { proof_of_work: true } }));
    const body = { form_id: form.id, answers: contact, status: 'partial', challenge: await solvedChallenge() };
    const racing = await Promise.all([1, 2, 3, 4].map(() => publicPost(body)));
    expect(racing.map((res) => res.status).sort()).toEqual([201, 422, 422, 422]);
    for (const res of racing.filter((res) => res.status === 422)) expect(issuesOf(res)).toEqual(['body /challenge already_used']);
    expect(await submissionsOf(form.id)).toHaveLength(1);
  });

  it('when a secret key asks for a challenge, then 403 secret_key_not_allowed; a test key gets one', async () => {
    expectProblem(await api.call('post', '/v1/public/challenges'), 403, 'permission_error', 'secret_key_not_allowed');
    expect((await api.call('post', '/v1/public/challenges', testKey.value)).body).toMatchObject({
      object: 'challenge',
      parameters: { algorithm: 'SHA-256' },
    });
  });
});

describe('CORS on the public paths', () => {
  const preflight = (path: string, from: string) =>
    request(api.baseUrl)
      .options(path)
      .trustLocalhost()
      .ca(api.certificate)
      .set('Origin', from)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type');

  it('when a browser preflights from an origin a key allows, then it is granted that origin, the methods and the headers', async () => {
    const res = await preflight('/v1/public/submissions', origin);
    expect(res.status).toBe(204);
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'GET, POST, PATCH',
      'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key',
      vary: 'Origin',
    });
  });

  it('when a browser preflights from any other origin, or preflights a secret-key path, then there is no grant', async () => {
    const other = await preflight('/v1/public/submissions', 'https://evil.example');
    expect(other.status).toBe(204);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const secret = await preflight('/v1/forms', origin);
    expect(secret.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('when a page on an allowed origin calls, then the answer grants that origin (never *) and varies by Origin', async () => {
    const form = await createForm(api, demoForm());
    const res = await api.call('get', `/v1/public/forms/${form.id}`, key.value).set('Origin', origin);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(origin);
    expect(res.headers.vary).toMatch(/Origin/);
    expect(res.headers['access-control-expose-headers']).toMatch(/X-Request-Id/);
  });

  it('when a page on another origin calls, then 403 origin_not_allowed without a grant, and nothing is stored', async () => {
    const form = await createForm(api, demoForm());
    const res = await publicPost({ form_id: form.id, answers: contact, status: 'partial' }).set('Origin', 'https://evil.example');
    expectProblem(res, 403, 'permission_error', 'origin_not_allowed');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(await submissionsOf(form.id)).toEqual([]);
  });

  it('when a secret-key operation is called from a page, then no CORS header is sent', async () => {
    const res = await api.call('get', '/v1/forms').set('Origin', origin);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers.vary ?? '').not.toMatch(/Origin/);
  });
});

describe('the per-address limit', () => {
  const limited = useWatchedApi(() => ({ rateLimits: { ...generousLimits, publicPerAddressPerMinute: 3 } }));

  it('when an address sends more public requests than its budget, then 429 before anything else; secret keys are unaffected', async () => {
    const own = await createPublishableKey(limited, { environment: 'live' });
    const form = await createForm(limited, demoForm());
    for (let i = 0; i < 3; i++) expect((await limited.call('get', `/v1/public/forms/${form.id}`, own.value)).status).toBe(200);
    const refused = await limited.call('get', `/v1/public/forms/${form.id}`, own.value);
    expectProblem(refused, 429, 'rate_limit_error', 'rate_limited');
    expect(refused.body.message).toMatch(/3 public requests per minute from this address/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Before authentication: even a request without a key is counted and refused.
    expectProblem(await limited.call('get', `/v1/public/forms/${form.id}`, null), 429, 'rate_limit_error', 'rate_limited');
    expect((await limited.call('get', `/v1/forms/${form.id}`)).status).toBe(200);
  });
});
