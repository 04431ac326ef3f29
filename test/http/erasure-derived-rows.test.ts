/**
 * What an erasure leaves in the database: nothing the person typed or brought, in any table. The test reads every
 * row of every table of the store, so a copy made by a table or column added later (an aggregate, an index, a log)
 * is found without naming it here. The person's values are made unique (a marker), so a match is theirs.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryWorker } from '../../src/domain/integrations/worker.js';
import { createForm, createIntegration, type Form } from '../support/factories.js';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey, type PublishableKey } from '../support/publishable-keys.js';
import { storedRows, testStoreKind } from '../support/stores.js';
import { testWebhookUrls } from './integrations-support.js';
import { demoForm } from './submissions-support.js';

const api = useWatchedApi(() => ({ rateLimits: generousLimits, webhookUrls: testWebhookUrls() }));
let key: PublishableKey;

beforeAll(async () => {
  key = await createPublishableKey(api, { environment: 'live' });
});

/** Every table of the store, as text: each row's values (binary ones as Latin-1, so text inside them shows). */
async function everyTable(): Promise<Map<string, string>> {
  const tables =
    testStoreKind() === 'postgres'
      ? await storedRows(api.store, "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'")
      : await storedRows(api.store, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  const text = new Map<string, string>();
  for (const { name } of tables) {
    const rows = await storedRows(api.store, `SELECT * FROM "${name as string}"`);
    const replacer = (_key: string, value: unknown) =>
      (value as { type?: unknown })?.type === 'Buffer' ? Buffer.from((value as { data: number[] }).data).toString('latin1') : value;
    text.set(name as string, JSON.stringify(rows, replacer).toLowerCase());
  }
  return text;
}

/** The tables whose rows hold one of `markers`, with the markers each holds. */
async function tablesHolding(markers: readonly string[]): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  for (const [table, text] of await everyTable()) {
    const held = markers.filter((marker) => text.includes(marker.toLowerCase()));
    if (held.length > 0) found[table] = held;
  }
  return found;
}

/**
 * A person who came from a campaign and answered through the page, in two steps, and through the workspace's own
 * integration (with a hidden field and metadata, then rescored): every value they brought is a marker. Returns the
 * address and the markers.
 */
async function personWithEverything(form: Form): Promise<{ email: string; markers: string[] }> {
  const tag = randomBytes(6).toString('hex');
  const markers: string[] = [];
  const marker = (what: string) => {
    markers.push(`${what}${tag}`);
    return `${what}${tag}`;
  };
  const email = `${marker('mail')}@example.org`;
  const values = {
    source: marker('utmsource'),
    medium: marker('utmmedium'),
    campaign: marker('utmcampaign'),
    term: marker('utmterm'),
    content: marker('utmcontent'),
    landing: `https://www.acme.example/${marker('landing')}`,
    referrer: `https://www.acme.example/${marker('referrer')}`,
    agent: `Mozilla/5.0 (${marker('agent')})`,
    name: marker('fullname'),
    notes: marker('notes'),
  };
  const started = await api
    .call('post', '/v1/public/submissions', key.value)
    .set('Idempotency-Key', marker('create'))
    .set('User-Agent', values.agent)
    .set('Referer', values.referrer)
    .send({
      form_id: form.id,
      answers: { full_name: values.name, email },
      status: 'partial',
      context: {
        landing_url: values.landing,
        utm: { source: values.source, medium: values.medium, campaign: values.campaign, term: values.term, content: values.content },
      },
    });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const completed = await api
    .call('patch', `/v1/public/submissions/${started.body.id}`, key.value)
    .set('Idempotency-Key', marker('complete'))
    .send({
      resume_token: started.body.resume_token,
      answers: { company_size: '1_10', has_budget: false, notes: values.notes, gdpr: true },
      status: 'completed',
    });
  expect(completed.status, JSON.stringify(completed.body)).toBe(200);
  const direct = await api
    .call('post', '/v1/submissions')
    .set('Idempotency-Key', marker('direct'))
    .send({
      form_id: form.id,
      answers: { full_name: values.name, email },
      hidden: { utm_source: marker('hidden') },
      metadata: { crm_note: marker('metadata') },
      status: 'partial',
      context: { utm: { source: values.source } },
    });
  expect(direct.status, JSON.stringify(direct.body)).toBe(201);
  const rescored = await api.call('post', `/v1/submissions/${direct.body.id}/rescore`).set('Idempotency-Key', marker('rescore'));
  expect(rescored.status, JSON.stringify(rescored.body)).toBe(200);
  return { email, markers };
}

describe('what an erasure leaves in the database', () => {
  it('when a person is erased, then no table holds anything they typed or brought: answers, context, UTM sources in the analytics, events', async () => {
    const { live_admin_key: admin } = api.workspace;
    await createIntegration(api, { events: ['submission.created', 'submission.completed', 'submission.rescored'] }, admin);
    const form = await createForm(api, demoForm());
    const { email, markers } = await personWithEverything(form);
    // One attempt made (its log stays) and its retry pending, for each event.
    await createDeliveryWorker(api.services, { transport: async () => ({ status: 500 }), random: () => 0.5 }).runDue();
    // The scan sees them before: the submissions, the source aggregates, the events.
    const before = await tablesHolding(markers);
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['submissions', 'submission_emails', 'events']));
    expect(JSON.stringify(before)).toContain(markers.find((marker) => marker.startsWith('utmsource'))!);

    const res = await api.call('post', '/v1/submissions/erase').send({ email });
    expect(res.status).toBe(200);
    expect(res.body.deleted_submissions).toBe(2);

    expect(await tablesHolding(markers)).toEqual({});
  });

  it('when another submission came from the same source, then the source keeps counting it after the erasure', async () => {
    const form = await createForm(api, demoForm());
    const { email, markers } = await personWithEverything(form);
    const source = markers.find((marker) => marker.startsWith('utmsource'))!;
    const other = await api
      .call('post', '/v1/submissions')
      .send({ form_id: form.id, answers: { full_name: 'Kim' }, status: 'partial', context: { utm: { source } } });
    expect(other.status).toBe(201);

    expect((await api.call('post', '/v1/submissions/erase').send({ email })).body.deleted_submissions).toBe(2);

    const analytics = await api.call('get', `/v1/analytics?form_id=${form.id}`);
    expect(analytics.status).toBe(200);
    expect(analytics.body.utm_sources.top).toEqual([{ source, started: 1, completed: 0 }]);
  });
});
