/**
 * `metadata`: the caller's own key-value pairs (Stripe semantics) on forms, submissions, folders and integrations:
 * set on create and PATCH (merged; `""` removes a key), bounded (50 keys, key 40 characters, value 500, strings
 * only), filterable as `metadata[key]=value` on the form and submission lists, carried in webhooks and the export.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createFolder, createForm, createIntegration, type Form, submit } from '../support/factories.js';
import { asText, generousLimits, issuesOf, useWatchedApi } from '../support/http-checks.js';
import { testWebhookUrls } from './integrations-support.js';
import { anaAnswers, demoForm, noBudgetAnswers, recordingEvents } from './submissions-support.js';

const events = recordingEvents();
const api = useWatchedApi(() => ({ events: events.publisher, rateLimits: generousLimits, webhookUrls: testWebhookUrls() }));
let form: Form;

beforeAll(async () => {
  form = await createForm(api, demoForm());
});

/** `count` pairs `k0: v0`, `k1: v1`, …, merged over `extra`. */
const pairs = (count: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  ...Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, `v${index}`])),
  ...extra,
});

/** Each resource: how to create one with a body's `metadata`, and where its PATCH goes. */
const resources = [
  {
    name: 'form',
    create: (metadata: unknown) => api.call('post', '/v1/forms').send({ name: 'With metadata', metadata }),
    path: (id: string) => `/v1/forms/${id}`,
  },
  {
    name: 'submission',
    create: (metadata: unknown) => api.call('post', '/v1/submissions').send({ form_id: form.id, answers: anaAnswers(), metadata }),
    path: (id: string) => `/v1/submissions/${id}`,
  },
  {
    name: 'integration',
    create: (metadata: unknown) =>
      api.call('post', '/v1/integrations').send({ url: 'https://hooks.example.com/form-funnel', events: ['form.created'], metadata }),
    path: (id: string) => `/v1/integrations/${id}`,
  },
  {
    name: 'folder',
    create: (metadata: unknown) => api.call('post', '/v1/folders').send({ name: 'With metadata', metadata }),
    path: (id: string) => `/v1/folders/${id}`,
  },
] as const;

describe.each(resources)('metadata on a $name', (resource) => {
  it('when created with pairs, then 201 returns them, GET too, and a key given as "" is not stored', async () => {
    const res = await resource.create({ crm_id: '0061x00000AbCdE', owner: 'ana', dropped: '' });
    expect(res.status).toBe(201);
    expect(res.body.metadata).toEqual({ crm_id: '0061x00000AbCdE', owner: 'ana' });
    expect((await api.call('get', resource.path(res.body.id))).body.metadata).toEqual({ crm_id: '0061x00000AbCdE', owner: 'ana' });
  });

  it('when created without metadata, then it is {}', async () => {
    const res = await resource.create(undefined);
    expect(res.status).toBe(201);
    expect(res.body.metadata).toEqual({});
  });

  it('when 50 keys of 40 characters with values of 500 are given, then all are stored', async () => {
    const full = pairs(49, { ['k'.repeat(40)]: 'v'.repeat(500) });
    const res = await resource.create(full);
    expect(res.status).toBe(201);
    expect(res.body.metadata).toEqual(full);
  });

  it.each([
    ['51 keys', pairs(51), 'body /metadata max_properties'],
    ['a key of 41 characters', { ['k'.repeat(41)]: 'v' }, `body /metadata/${'k'.repeat(41)} max_length`],
    ['a value of 501 characters', { long: 'v'.repeat(501) }, 'body /metadata/long max_length'],
    ['a number as a value', { count: 3 }, 'body /metadata/count type'],
    ['null as a value', { gone: null }, 'body /metadata/gone type'],
    ['a key with a square bracket', { 'a[b]': 'v' }, 'body /metadata/a[b] pattern'],
  ])('when given %s, then 400 invalid_parameters names it', async (_, metadata, issue) => {
    const res = await resource.create(metadata);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_parameters');
    expect(issuesOf(res)).toContain(issue);
  });
});

describe.each(resources)('PATCH metadata of a $name', (resource) => {
  it('when pairs are patched, then they are merged: a key given replaces, "" removes, a key left out is kept', async () => {
    const created = await resource.create({ keep: 'k', change: 'before', remove: 'r' });
    const res = await api.call('patch', resource.path(created.body.id)).send({ metadata: { change: 'after', remove: '', added: 'a' } });
    expect(res.status).toBe(200);
    expect(res.body.metadata).toEqual({ keep: 'k', change: 'after', added: 'a' });
    expect((await api.call('get', resource.path(created.body.id))).body.metadata).toEqual(res.body.metadata);
  });

  it('when the merge would hold 51 keys, then 400 names /metadata and nothing changes; 50 are accepted', async () => {
    const created = await resource.create(pairs(40));
    const over = await api.call('patch', resource.path(created.body.id)).send({ metadata: more(11) });
    expect(over.status).toBe(400);
    expect(issuesOf(over)).toEqual(['body /metadata max_properties']);
    expect((await api.call('get', resource.path(created.body.id))).body.metadata).toEqual(pairs(40));
    const full = await api.call('patch', resource.path(created.body.id)).send({ metadata: more(10) });
    expect(full.status).toBe(200);
    expect(Object.keys(full.body.metadata)).toHaveLength(50);
  });
});

/** `count` pairs not among `pairs(40)`'s keys. */
const more = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`more${index}`, 'm']));

describe('PATCH /v1/folders/{id}', () => {
  it('when a folder is renamed, then its metadata stays; an empty body is 400 and an unknown folder 404', async () => {
    const folder = await createFolder(api, 'Before');
    await api.call('patch', `/v1/folders/${folder.id}`).send({ metadata: { owner: 'ana' } });
    const renamed = await api.call('patch', `/v1/folders/${folder.id}`).send({ name: 'After' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: folder.id, name: 'After', metadata: { owner: 'ana' } });
    expect((await api.call('patch', `/v1/folders/${folder.id}`).send({})).status).toBe(400);
    expect((await api.call('patch', `/v1/folders/fld_${'A'.repeat(24)}`).send({ name: 'X' })).status).toBe(404);
  });
});

describe('metadata of a completed submission', () => {
  it('when a completed submission is patched with metadata alone, then 200: answers, score and updated events stay', async () => {
    const created = await submit(api, { form_id: form.id, answers: anaAnswers(), metadata: { stage: 'new' } });
    const published = events.published.length;
    const res = await api.call('patch', `/v1/submissions/${created.id}`).send({ metadata: { stage: 'qualified' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'completed',
      score: created.score,
      answers: created.answers,
      metadata: { stage: 'qualified' },
    });
    expect(res.body.completed_at).toBe(created.completed_at);
    expect(events.published.length).toBe(published);
  });

  it('when a completed submission is patched with answers and metadata, then 409 submission_completed and nothing changes', async () => {
    const created = await submit(api, { form_id: form.id, answers: anaAnswers(), metadata: { stage: 'new' } });
    const res = await api.call('patch', `/v1/submissions/${created.id}`).send({ answers: { notes: 'late' }, metadata: { stage: 'x' } });
    expect(res.status).toBe(409);
    expect((await api.call('get', `/v1/submissions/${created.id}`)).body.metadata).toEqual({ stage: 'new' });
  });

  it('when a partial submission is resumed with metadata, then both are merged', async () => {
    const started = await submit(api, {
      form_id: form.id,
      status: 'partial',
      answers: { full_name: 'Tom Okafor' },
      metadata: { stage: 'new', source_row: '17' },
    });
    const res = await api
      .call('patch', `/v1/submissions/${started.id}`)
      .send({ answers: { email: 'tom@brightdesk.example' }, metadata: { stage: 'engaged', source_row: '' } });
    expect(res.status).toBe(200);
    expect(res.body.answers).toMatchObject({ full_name: 'Tom Okafor', email: 'tom@brightdesk.example' });
    expect(res.body.metadata).toEqual({ stage: 'engaged' });
  });
});

describe('metadata[key]=value on the lists', () => {
  it('when the submission list is filtered by metadata, then only exact matches of every pair come back', async () => {
    const own = await createForm(api, demoForm({ name: 'Filtered' }));
    const a = await submit(api, { form_id: own.id, answers: noBudgetAnswers(), metadata: { crm: 'hubspot', region: 'eu' } });
    const b = await submit(api, { form_id: own.id, answers: noBudgetAnswers(), metadata: { crm: 'hubspot', region: 'us' } });
    await submit(api, { form_id: own.id, answers: noBudgetAnswers(), metadata: { crm: 'HubSpot' } });
    await submit(api, { form_id: own.id, answers: noBudgetAnswers() });
    const one = await api.call('get', `/v1/submissions?form_id=${own.id}&metadata[crm]=hubspot`);
    expect(one.status).toBe(200);
    expect(one.body.data.map((s: { id: string }) => s.id)).toEqual([b.id, a.id]);
    const both = await api.call('get', `/v1/submissions?form_id=${own.id}&metadata[crm]=hubspot&metadata[region]=eu`);
    expect(both.body.data.map((s: { id: string }) => s.id)).toEqual([a.id]);
    const none = await api.call('get', `/v1/submissions?form_id=${own.id}&metadata[region]=apac`);
    expect(none.body.data).toEqual([]);
  });

  it('when the form list is filtered by metadata, then only forms holding the pair come back', async () => {
    const tagged = await createForm(api, demoForm({ name: 'Tagged', metadata: { team: 'growth-42' } }));
    await createForm(api, demoForm({ name: 'Other team', metadata: { team: 'sales' } }));
    const res = await api.call('get', '/v1/forms?metadata[team]=growth-42');
    expect(res.status).toBe(200);
    expect(res.body.data.map((f: { id: string }) => f.id)).toEqual([tagged.id]);
    expect(res.body.data[0].metadata).toEqual({ team: 'growth-42' });
  });

  it('when the export is filtered by metadata, then it holds what the list holds', async () => {
    const own = await createForm(api, demoForm({ name: 'Exported' }));
    const a = await submit(api, { form_id: own.id, answers: noBudgetAnswers(), metadata: { batch: '7' } });
    await submit(api, { form_id: own.id, answers: noBudgetAnswers(), metadata: { batch: '8' } });
    const res = await api
      .call('get', `/v1/submissions/export?form_id=${own.id}&metadata[batch]=7&format=ndjson`)
      .buffer(true)
      .parse(asText);
    expect(res.status).toBe(200);
    const lines = String(res.body)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.id, line.metadata])).toEqual([[a.id, { batch: '7' }]]);
  });

  it('when 5 pairs are given, then the list answers; 6 are 400, and an unknown parameter is still 400', async () => {
    const five = Array.from({ length: 5 }, (_, index) => `metadata[k${index}]=v`).join('&');
    expect((await api.call('get', `/v1/submissions?${five}`)).status).toBe(200);
    const six = await api.call('get', `/v1/forms?${five}&metadata[k5]=v`);
    expect(six.status).toBe(400);
    expect(six.body.code).toBe('invalid_parameters');
    const unknown = await api.call('get', '/v1/submissions?metadata[crm]=x&colour=red');
    expect(unknown.status).toBe(400);
    expect(issuesOf(unknown)).toContain('query /colour additional_property');
  });

  it('when a filter key is over 40 characters or a value empty, then 400', async () => {
    expect((await api.call('get', `/v1/submissions?metadata[${'k'.repeat(41)}]=v`)).status).toBe(400);
    expect((await api.call('get', '/v1/submissions?metadata[crm]=')).status).toBe(400);
  });
});

describe('metadata in webhooks', () => {
  it('when a submission and a form with metadata are created, then their events carry it', async () => {
    const tagged = await createForm(api, demoForm({ name: 'Evented', metadata: { owner: 'ana' } }));
    expect(events.published.at(-1)).toMatchObject({
      type: 'form.created',
      data: { object: { id: tagged.id, metadata: { owner: 'ana' } } },
    });
    const s = await submit(api, { form_id: tagged.id, answers: noBudgetAnswers(), metadata: { crm_id: '42' } });
    expect(events.published.slice(-2).map((event) => [event.type, event.data.object])).toEqual([
      ['submission.created', expect.objectContaining({ id: s.id, metadata: { crm_id: '42' } })],
      ['submission.completed', expect.objectContaining({ id: s.id, metadata: { crm_id: '42' } })],
    ]);
  });

  it('when an integration and a folder are created with metadata, then the list shows it', async () => {
    const integration = await createIntegration(api, { metadata: { env: 'staging' } });
    const folder = await createFolder(api, 'Plain');
    expect(folder.metadata).toEqual({});
    const listed = await api.call('get', '/v1/integrations');
    expect(listed.body.data.find((i: { id: string }) => i.id === integration.id).metadata).toEqual({ env: 'staging' });
  });
});
