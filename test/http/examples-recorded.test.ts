/**
 * The document's examples are the reference server's answers (src/examples/): the story runs against a fresh server
 * on this project's store (SQLite, and PostgreSQL in api-postgres), and every example file must hold what it answered.
 * When the first test fails, run `npm run examples:record` and review the diff it leaves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExample } from '../../src/examples/document-files.js';
import { examplesDrift, type Recording, recordExamples } from '../../src/examples/record.js';
import { unrecordedExamples } from '../../src/examples/story.js';
import { newId } from '../../src/ids.js';
import { createTestStore } from '../support/stores.js';

// biome-ignore lint/suspicious/noExplicitAny: the recorded answers are read by their documented shapes.
type Json = Record<string, any>;

let recording: Recording;
beforeAll(async () => {
  const store = await createTestStore();
  try {
    recording = await recordExamples({ store });
  } finally {
    await store.close();
  }
  // About sixty requests and a worker run: a minute or more on a busy machine.
}, 240_000);
afterAll(() => {
  // The recorder put the system's id source back: ids are random again.
  expect(newId('req')).not.toBe(newId('req'));
});

const recorded = (file: string) => recording.examples.get(`components/examples/${file}.yaml`) as Json;

describe('examples recorded from the server', () => {
  it('when the story runs on a fresh server, then every example file holds what the server answered', () => {
    // The first file that drifted, as a diff of what the server answered against what the file holds.
    const [file] = examplesDrift(recording).changed;
    if (file) expect(recording.examples.get(file), `openapi/${file}: run npm run examples:record`).toEqual(readExample(file).value);
    expect(examplesDrift(recording).changed).toEqual([]);
  });

  it('when an operation documents a success example, then the story records it or says why it cannot', () => {
    expect(examplesDrift(recording).unaccounted).toEqual([]);
    for (const reason of Object.values(unrecordedExamples)) expect(reason.length).toBeGreaterThan(20);
  });

  it('when one answer differs from its file, then the drift names that file and no other', () => {
    const altered = new Map(recording.examples);
    altered.set('components/examples/FormUpdated.yaml', { ...recorded('FormUpdated'), name: 'Something else' });
    // An NDJSON row is compared as JSON: PostgreSQL's jsonb orders an object's keys its own way.
    const ndjson = 'components/examples/SubmissionExportNdjson.yaml';
    const reordered = (recording.examples.get(ndjson) as string).replace(
      /^\{"id":("[^"]+"),"object":"submission",/gm,
      '{"object":"submission","id":$1,',
    );
    expect(reordered).not.toBe(recording.examples.get(ndjson));
    altered.set(ndjson, reordered);
    expect(examplesDrift({ ...recording, examples: altered }).changed).toEqual(['components/examples/FormUpdated.yaml']);
  });

  it('when the examples are read together, then they tell one story', () => {
    const form = recorded('FormCreated');
    expect(form.version).toBe(1);
    expect(recorded('FormUpdated')).toMatchObject({ id: form.id, name: recorded('FormUpdateRequest').name, version: 2 });
    expect(recorded('SubmissionCreateRequest').form_id).toBe(form.id);
    expect(recorded('SubmissionCreated')).toMatchObject({ form_id: form.id, form_version: recorded('FormRestored').version });
    expect(recorded('IntegrationCreateRequest').form_id).toBe(form.id);
    expect(recorded('IntegrationDispatched').event_id).toBe(recorded('IntegrationDispatchReplay').event_id);
    expect(recorded('Event').id).toBe(recorded('IntegrationDispatchReplay').event_id);
    expect(recorded('FormTransferRequest').workspace_id).toBe(recorded('FormTransferCreated').to_workspace_id);
    expect(recorded('SubmissionErasure').deleted_submissions).toBe(1);
    // The webhooks' payloads are the story's events.
    expect(recorded('FormCreatedEvent').data.object).toMatchObject({ id: form.id, version: 1 });
    expect(recorded('FormUpdatedEvent').data.object).toMatchObject({ id: form.id, name: recorded('FormUpdated').name });
    expect(recorded('SubmissionCreatedEvent').data.object.id).toBe(recorded('SubmissionCreated').id);
    expect(recorded('SubmissionErasedEvent').data.object).toMatchObject({ form_id: form.id, count: 1 });
    expect(recorded('SubmissionDeletedEvent').data.object).toMatchObject({ id: recorded('SubmissionResumed').id, form_id: form.id });
    // The website's submission: the form it renders, answered with its own fields, continued with the token it was given.
    const page = recorded('PublicForm');
    expect(page).toMatchObject({ id: form.id, name: recorded('FormUpdated').name });
    const fields = new Set((page.steps as Json[]).flatMap((step) => (step.fields as Json[]).map((field) => field.ref)));
    const started = recorded('PublicSubmissionCreateRequest');
    expect(started).toMatchObject({ form_id: form.id, started_token: page.started_token });
    const answered = [started.answers, started.hidden, recorded('PublicSubmissionUpdateRequest').answers].flatMap(Object.keys);
    expect(answered.filter((ref) => !fields.has(ref))).toEqual([]);
    expect(recorded('PublicSubmissionCreated')).toMatchObject({ form_id: form.id, status: 'partial' });
    expect(recorded('PublicSubmissionUpdateRequest').resume_token).toBe(recorded('PublicSubmissionCreated').resume_token);
    expect(recorded('PublicSubmission')).toMatchObject({ id: recorded('PublicSubmissionCreated').id, status: 'completed' });
    // The website's key, changed after the visit: same key and value, the request's name and origins; then revoked.
    const key = recorded('PublishableKey');
    expect(recorded('PublishableKeyUpdated')).toMatchObject({ ...recorded('PublishableKeyUpdateRequest'), id: key.id, value: key.value });
    expect(recorded('PublishableKeyRevoked')).toMatchObject({ ...recorded('PublishableKeyUpdateRequest'), id: key.id, status: 'revoked' });
    // The connector is disconnected with the refresh token its refresh returned (the one it sent is rotated out).
    const refresh = recorded('OAuthRefreshTokenRequest');
    expect(refresh.refresh_token).toBe(recorded('OAuthToken').refresh_token);
    expect(recorded('OAuthRevokeRequest')).toMatchObject({ token_type_hint: 'refresh_token', client_id: refresh.client_id });
    expect(recorded('OAuthRevokeRequest').token).toMatch(/^svc_ort_EXAMPLE/);
    expect(recorded('OAuthRevokeRequest').token).not.toBe(refresh.refresh_token);
    // Every exported row is a whole submission of the form, as the list shows it.
    const rows = (recording.examples.get('components/examples/SubmissionExportNdjson.yaml') as string).trim().split('\n');
    const listed = (recorded('SubmissionList').data as Json[]).map(({ request_id, ...submission }) => submission);
    expect(rows.map((row) => JSON.parse(row))).toEqual(expect.arrayContaining(listed.filter((s) => s.form_id === form.id)));
  });

  it('when a secret is recorded, then it is an obvious fake that still fits its pattern', () => {
    expect(recorded('ApiKeyCreated').secret).toMatch(/^svc_live_EXAMPLE[0-9A-Za-z]{33}$/);
    expect(recorded('ApiKeyCreated').secret_hint).toBe(`svc_live_…${recorded('ApiKeyCreated').secret.slice(-4)}`);
    expect(recorded('IntegrationCreated').signing_secret).toMatch(/^whsec_EXAMPLE[0-9A-Za-z]{25}$/);
    expect(recorded('OAuthToken')).toMatchObject({
      access_token: expect.stringMatching(/^svc_oat_EXAMPLE/),
      refresh_token: expect.stringMatching(/^svc_ort_EXAMPLE/),
    });
  });
});
