/**
 * The events feed: every event the service emitted, in the webhook envelope, per workspace and environment,
 * newest first, filtered by type and created range, kept 30 days, and replayable to an integration by the id
 * it shows. The clock is a test clock: each test moves it an hour on and reads only what it made since.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createFormFunnelClient, paginate, unwrap } from '../../src/client/index.js';
import { EVENT_RETENTION_DAYS, purgeExpiredEvents } from '../../src/domain/event-feed/service.js';
import { fetchTrusting } from '../e2e/support/fetch-trusting.js';
import { createFolder, createForm, createIntegration, logsOf, PUBLIC_URL } from '../support/factories.js';
import { absentId, expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { schemaErrors, testClock, testWebhookUrls } from './integrations-support.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const clock = testClock('2026-11-04T10:00:00.000Z');
const api = useWatchedApi(() => ({ webhookUrls: testWebhookUrls(), now: clock.now, rateLimits: generousLimits }));

interface FeedEvent {
  id: string;
  object: 'event';
  type: string;
  created_at: string;
  test: boolean;
  data: { object: { id?: string; object: string } };
}

/** When the current test started: each test lists only what it made since. */
let since: string;
beforeEach(() => {
  clock.advance(HOUR);
  since = clock.now().toISOString();
});

/** Moves the clock a second on, so that each event of a test has its own instant. */
const tick = () => clock.advance(1000);

/** The feed since the test started (unless `query` gives its own `created_gte`). */
async function feed(query = '', key = api.workspace.live_admin_key): Promise<{ data: FeedEvent[]; has_more: boolean }> {
  const from = query.includes('created_gte=') ? '' : `created_gte=${encodeURIComponent(since)}&`;
  const res = await api.call('get', `/v1/events?${from}${query}`, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const typesOf = (events: FeedEvent[]) => events.map((event) => event.type);

describe('GET /v1/events', () => {
  it('when forms are created, updated and deleted with no integration, then the feed lists every event newest first in the webhook envelope', async () => {
    const form = await createForm(api, { name: 'Feed' });
    tick();
    expect((await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'Feed 2' })).status).toBe(200);
    tick();
    expect((await api.call('delete', `/v1/forms/${form.id}`)).status).toBe(200);

    const { data, has_more } = await feed();
    expect(typesOf(data)).toEqual(['form.deleted', 'form.updated', 'form.created']);
    expect(has_more).toBe(false);
    for (const event of data) {
      expect(schemaErrors('Event', event)).toEqual([]);
      expect(event).toMatchObject({ object: 'event', test: false, data: { object: { id: form.id } } });
    }
    const created = data[2]!;
    expect(created.created_at).toBe(since);

    const one = await api.call('get', `/v1/events/${created.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ ...created, request_id: one.headers['x-request-id'] });
  });

  it('when there are more events than the limit, then pages follow starting_after and ending_before, each event once', async () => {
    for (let index = 0; index < 5; index++) {
      await createForm(api);
      tick();
    }
    const first = await feed('limit=2');
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    const second = await feed(`limit=2&starting_after=${first.data[1]!.id}`);
    const third = await feed(`limit=2&starting_after=${second.data[1]!.id}`);
    expect(third).toMatchObject({ has_more: false });
    const ids = [...first.data, ...second.data, ...third.data].map((event) => event.id);
    expect(new Set(ids).size).toBe(5);
    const times = [...first.data, ...second.data, ...third.data].map((event) => event.created_at);
    expect(times).toEqual([...times].sort().reverse());

    const back = await feed(`limit=2&ending_before=${second.data[0]!.id}`);
    expect(back.data.map((event) => event.id)).toEqual(first.data.map((event) => event.id));
    expectProblem(await api.call('get', `/v1/events?starting_after=${absentId('evt')}`), 400, 'validation_error', 'invalid_cursor');
  });

  it('when filtered by one type or several (the parameter repeated), then only events of those types are listed', async () => {
    const form = await createForm(api);
    tick();
    await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'Renamed' });
    tick();
    await api.call('delete', `/v1/forms/${form.id}`);

    expect(typesOf((await feed('type=form.updated')).data)).toEqual(['form.updated']);
    expect(typesOf((await feed('type=form.created&type=form.deleted')).data)).toEqual(['form.deleted', 'form.created']);
    const unknown = await api.call('get', '/v1/events?type=form.exploded');
    expectProblem(unknown, 400, 'validation_error', 'invalid_parameters');
  });

  it('when given a created range, then created_gte includes its instant and created_lt excludes its own', async () => {
    await createForm(api);
    clock.advance(10_000);
    const middle = clock.now().toISOString();
    await createForm(api);
    clock.advance(10_000);
    const end = clock.now().toISOString();
    await createForm(api);

    expect((await feed()).data).toHaveLength(3);
    expect((await feed(`created_lt=${encodeURIComponent(middle)}`)).data).toHaveLength(1);
    const window = await feed(`created_gte=${encodeURIComponent(middle)}&created_lt=${encodeURIComponent(end)}`);
    expect(window.data.map((event) => event.created_at)).toEqual([middle]);
    expectProblem(await api.call('get', '/v1/events?created_gte=yesterday'), 400, 'validation_error', 'invalid_parameters');
  });

  it('when a test key and a live key each act, then each sees only its own environment’s events, and the other’s by id is 404', async () => {
    const testForm = await createForm(api, {}, api.workspace.test_admin_key);
    tick();
    const liveForm = await createForm(api);

    const testEvents = (await feed('', api.workspace.test_admin_key)).data;
    expect(testEvents.map((event) => event.data.object.id)).toEqual([testForm.id]);
    expect(testEvents[0]!.test).toBe(true);
    const liveEvents = (await feed()).data;
    expect(liveEvents.map((event) => event.data.object.id)).toEqual([liveForm.id]);

    expectProblem(await api.call('get', `/v1/events/${testEvents[0]!.id}`), 404, 'not_found', 'resource_not_found');
    expectProblem(
      await api.call('get', `/v1/events/${liveEvents[0]!.id}`, api.workspace.test_admin_key),
      404,
      'not_found',
      'resource_not_found',
    );
  });

  it("when another workspace asks for this workspace's event, then 404, and its own feed does not list it", async () => {
    await createForm(api);
    const [event] = (await feed()).data;
    const other = await api.otherWorkspace();
    expectProblem(await api.call('get', `/v1/events/${event!.id}`, other.live_admin_key), 404, 'not_found', 'resource_not_found');
    const theirs = await api.call('get', '/v1/events', other.live_admin_key);
    expect(theirs.body.data.map((e: FeedEvent) => e.id)).not.toContain(event!.id);
  });

  it('when a form- or folder-attached key reads the feed, then it sees only its forms’ events, and another form’s event is 403', async () => {
    const folder = await createFolder(api, 'Attached');
    const mine = await createForm(api, { folder_id: folder.id });
    tick();
    const theirs = await createForm(api);
    tick();
    const integration = await createIntegration(api, {});
    await api.call('post', `/v1/integrations/${integration.id}/dispatch`).send({});

    const formKey = await api.createKey({ environment: 'live', scope: 'read', attachment: { type: 'form', form_id: mine.id } });
    const folderKey = await api.createKey({ environment: 'live', scope: 'read', attachment: { type: 'folder', folder_id: folder.id } });
    for (const key of [formKey.secret, folderKey.secret]) {
      const events = (await feed('', key)).data;
      expect(events.map((event) => event.data.object.id)).toEqual([mine.id]);
    }
    const all = (await feed()).data;
    expect(typesOf(all)).toEqual(['integration.ping', 'form.created', 'form.created']);
    const other = all.find((event) => event.data.object.id === theirs.id)!;
    expectProblem(await api.call('get', `/v1/events/${other.id}`, formKey.secret), 403, 'permission_error', 'form_not_attached');
    expectProblem(await api.call('get', `/v1/events/${all[0]!.id}`, folderKey.secret), 403, 'permission_error', 'form_not_attached');
  });

  it('when the key is missing, then 401; a read key is enough', async () => {
    expectProblem(await api.call('get', '/v1/events', null), 401, 'authentication_error', 'invalid_api_key');
    const reader = await api.createKey({ environment: 'live', scope: 'read' });
    expect((await api.call('get', '/v1/events', reader.secret)).status).toBe(200);
  });
});

describe('retention', () => {
  // Integrations of earlier tests would hold attempts pending for these tests' events, which keeps them.
  beforeEach(async () => {
    const integrations = await api.call('get', '/v1/integrations?limit=100');
    for (const { id } of integrations.body.data as Array<{ id: string }>) await api.call('delete', `/v1/integrations/${id}`);
  });

  it(`when an event is older than ${EVENT_RETENTION_DAYS} days, then the retention job deletes it; a younger one stays`, async () => {
    const old = await createForm(api);
    const [event] = (await feed()).data;
    clock.advance(EVENT_RETENTION_DAYS * DAY - 1000);
    await createForm(api);
    const [young] = (await feed(`created_gte=${encodeURIComponent(clock.now().toISOString())}`)).data;
    expect(young!.data.object.id).not.toBe(old.id);

    clock.advance(1001);
    expect(await purgeExpiredEvents(api.services)).toBeGreaterThanOrEqual(1);
    expectProblem(await api.call('get', `/v1/events/${event!.id}`), 404, 'not_found', 'resource_not_found');
    expect((await api.call('get', `/v1/events/${young!.id}`)).status).toBe(200);
    // A second run finds nothing more to delete.
    expect(await purgeExpiredEvents(api.services)).toBe(0);
  });

  it('when an expired event still has an attempt pending, then it is kept until that attempt is made', async () => {
    const integration = await createIntegration(api, { url: PUBLIC_URL, events: ['form.created'] });
    await createForm(api);
    const [event] = (await feed('type=form.created')).data;
    clock.advance(EVENT_RETENTION_DAYS * DAY + 1000);
    await purgeExpiredEvents(api.services);
    expect((await api.call('get', `/v1/events/${event!.id}`)).status).toBe(200);
    expect((await logsOf(api, integration.id))[0]).toMatchObject({ event_id: event!.id, status: 'pending' });
    await api.call('delete', `/v1/integrations/${integration.id}`);
    await purgeExpiredEvents(api.services);
    expect((await api.call('get', `/v1/events/${event!.id}`)).status).toBe(404);
  });
});

describe('reconcile and replay', () => {
  it('when a partner missed an event, then the id the feed shows replays it through dispatch with the same id', async () => {
    // The integration is created after the event: nothing was ever queued for it, yet the feed kept the event.
    const form = await createForm(api, { name: 'Missed' });
    tick();
    const integration = await createIntegration(api, { events: ['form.created'] });
    const [missed] = (await feed('type=form.created')).data;
    expect(missed!.data.object.id).toBe(form.id);

    const replay = await api.call('post', `/v1/integrations/${integration.id}/dispatch`).send({ event_id: missed!.id });
    expect(replay.status, JSON.stringify(replay.body)).toBe(202);
    expect(replay.body).toMatchObject({ event_id: missed!.id, event_type: 'form.created', status: 'pending' });
  });

  it('when the typed client pages the feed from a time and replays what it lacks, then each missed event is queued once', async () => {
    const transport = fetchTrusting(api.certificate);
    try {
      const client = createFormFunnelClient({
        apiKey: api.workspace.live_admin_key,
        baseUrl: `${api.baseUrl}/v1`,
        fetch: transport.fetch,
        maxRetries: 0,
      });
      const integration = await createIntegration(api, { events: ['form.created', 'form.deleted'] });
      const kept = await createForm(api);
      tick();
      const gone = await createForm(api);
      tick();
      await api.call('delete', `/v1/forms/${gone.id}`);
      const processed = new Set<string>();
      const [first] = (await feed('type=form.created')).data.slice(-1);
      processed.add(first!.id);

      const replayed: string[] = [];
      const query = { created_gte: since, type: ['form.created', 'form.deleted'] as Array<'form.created' | 'form.deleted'>, limit: 2 };
      for await (const event of paginate(client, '/events', { params: { query } })) {
        if (processed.has(event.id)) continue;
        const log = unwrap(
          await client.POST('/integrations/{id}/dispatch', { params: { path: { id: integration.id } }, body: { event_id: event.id } }),
        );
        replayed.push(log.event_id);
      }
      expect(replayed).toHaveLength(2);
      expect(first!.data.object.id).toBe(kept.id);
    } finally {
      transport.close();
    }
  });
});
