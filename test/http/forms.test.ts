/**
 * Forms: create (slugs), PATCH merge with versions and snapshots, logic checks, cascade delete,
 * and keyset pagination through a long list.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_DEFINITION_BYTES } from '../../src/domain/forms/definition-size.js';
import { KEPT_VERSIONS } from '../../src/domain/forms/service.js';
import { createForm, type FormRequest, formBody } from '../support/factories.js';
import { absentId, expectEnvelopeHeaders, expectProblem, generousLimits, issuesOf, useWatchedApi } from '../support/http-checks.js';
import { maxSizeFormBody, maxSizeFormParts } from '../support/max-size-form.js';

const api = useWatchedApi({ rateLimits: generousLimits });

const create = (body: FormRequest, key = api.workspace.live_admin_key) => createForm(api, body, key);

describe('POST /v1/forms', () => {
  it('when a form is created, then 201 with Location, the full form at version 1, and defaults filled in', async () => {
    const res = await api.call('post', '/v1/forms').send(formBody('Demo request'));
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/v1/forms/${res.body.id}`);
    expect(res.body).toMatchObject({
      object: 'form',
      name: 'Demo request',
      slug: 'demo-request',
      version: 1,
      status: 'published',
      folder_id: null,
      test: false,
      logic: [],
      scoring: { rules: [], grades: [] },
    });
    expect(res.body.id).toMatch(/^form_[0-9A-Za-z]{24}$/);
    expect(res.body.steps[1].fields[0]).toMatchObject({ ref: 'company', required: false, max_length: 255 });
    expectEnvelopeHeaders(res);
    const fetched = await api.call('get', res.headers.location!);
    expect(fetched.body).toEqual({ ...res.body, request_id: fetched.body.request_id });
  });

  it('when a chosen slug is taken, then 409 slug_taken pointing at /slug', async () => {
    await create({ name: 'Pricing', slug: 'pricing' });
    const res = await api.call('post', '/v1/forms').send({ name: 'Pricing again', slug: 'pricing' });
    expectProblem(res, 409, 'conflict_error', 'slug_taken');
    expect(issuesOf(res)).toEqual(['body /slug slug_taken']);
  });

  it('when the slug is derived from a name already used, then a numeric suffix is added instead of a conflict', async () => {
    const first = await create({ name: 'Contact Us!' });
    const second = await create({ name: 'contact us' });
    const third = await create({ name: 'Contact -- us' });
    expect([first.slug, second.slug, third.slug]).toEqual(['contact-us', 'contact-us-2', 'contact-us-3']);
  });

  it('when a name has accents and symbols, then the derived slug is plain lowercase words', async () => {
    expect((await create({ name: 'Démo Request (2027)' })).slug).toBe('demo-request-2027');
  });

  it('when a test key uses a slug that a live form has, then it may (slugs are unique per environment)', async () => {
    await create({ name: 'Shared slug', slug: 'shared-slug' });
    const sandbox = await create({ name: 'Shared slug', slug: 'shared-slug' }, api.workspace.test_admin_key);
    expect(sandbox).toMatchObject({ slug: 'shared-slug', test: true });
  });

  it('when another workspace uses the slug, then it is free here', async () => {
    const other = await api.otherWorkspace();
    await create({ name: 'Workspace slug', slug: 'workspace-slug' });
    expect((await create({ name: 'Workspace slug', slug: 'workspace-slug' }, other.live_admin_key)).slug).toBe('workspace-slug');
  });

  it('when the definition has duplicate field refs, then 422 invalid_form', async () => {
    const body = formBody('Dupes');
    (body.steps as Array<{ fields: Array<Record<string, unknown>> }>)[1]!.fields[0]!.ref = 'email';
    const res = await api.call('post', '/v1/forms').send(body);
    expectProblem(res, 422, 'validation_error', 'invalid_form');
    expect(issuesOf(res)).toEqual(['body /steps/1/fields/0/ref duplicate_ref']);
  });
});

describe('form logic', () => {
  const steps: FormRequest['steps'] = [
    { id: 's1', title: 'One', fields: [{ type: 'email', ref: 'email', label: 'Email' }] },
    { id: 's2', title: 'Two', fields: [{ type: 'yes_no', ref: 'budget', label: 'Budget?' }] },
    { id: 's3', title: 'Three', fields: [] },
  ];

  it('when rules name an unknown step, an unknown field, or jump backwards, then 422 invalid_form_logic listing each', async () => {
    const res = await api.call('post', '/v1/forms').send({
      name: 'Bad logic',
      steps,
      logic: [
        { id: 'r1', from_step: 'nope', when: { field: 'email', op: 'is_answered' }, then: { action: 'end_form' } },
        { id: 'r2', from_step: 's1', when: { field: 'ghost', op: 'is_answered' }, then: { action: 'jump_to_step', step: 's3' } },
        { id: 'r3', from_step: 's3', when: { field: 'budget', op: 'equals', value: true }, then: { action: 'jump_to_step', step: 's1' } },
        { id: 'r4', from_step: 's1', when: { field: 'email', op: 'is_answered' }, then: { action: 'jump_to_step', step: 'missing' } },
      ],
    });
    expectProblem(res, 422, 'validation_error', 'invalid_form_logic');
    expect(issuesOf(res).sort()).toEqual([
      'body /logic/0/from_step unknown_step',
      'body /logic/1/when/field unknown_field',
      'body /logic/2/then/step backward_jump',
      'body /logic/3/then/step unknown_step',
    ]);
  });

  it('when a rule jumps to its own step, then 422 logic_cycle', async () => {
    const form = await create({ name: 'Loop via PATCH', steps });
    const res = await api.call('patch', `/v1/forms/${form.id}`).send({
      logic: [
        {
          id: 'loop',
          from_step: 's2',
          when: { field: 'budget', op: 'equals', value: false },
          then: { action: 'jump_to_step', step: 's2' },
        },
      ],
    });
    expectProblem(res, 422, 'validation_error', 'invalid_form_logic');
    expect(issuesOf(res)).toEqual(['body /logic/0/then/step logic_cycle']);
    expect((await api.call('get', `/v1/forms/${form.id}`)).body).toMatchObject({ version: 1, logic: [] });
  });

  it('when the logic is consistent, then the form is stored with it', async () => {
    const logic: FormRequest['logic'] = [
      { id: 'skip', from_step: 's1', when: { field: 'email', op: 'is_not_answered' }, then: { action: 'jump_to_step', step: 's3' } },
    ];
    const form = await create({ name: 'Good logic', steps, logic });
    expect(form.logic).toEqual(logic);
  });
});

describe('PATCH /v1/forms/{id}', () => {
  it('when one field is sent, then only it changes, the version goes up and a snapshot is stored', async () => {
    const form = await create(formBody('Patch me', { slug: 'patch-me' }));
    const res = await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'Patched' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: form.id, name: 'Patched', slug: 'patch-me', version: 2, steps: form.steps, folder_id: null });

    const versions = await api.call('get', `/v1/forms/${form.id}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body.data.map((v: { version: number; name: string }) => [v.version, v.name])).toEqual([
      [2, 'Patched'],
      [1, 'Patch me'],
    ]);
    const first = await api.call('get', `/v1/forms/${form.id}/versions/1`);
    expect(first.body).toMatchObject({
      object: 'form_version',
      form_id: form.id,
      version: 1,
      name: 'Patch me',
      slug: 'patch-me',
      steps: form.steps,
    });
  });

  it('when the update changes nothing, then the version and updated_at stay and no snapshot is added', async () => {
    const form = await create(formBody('Unchanged'));
    const res = await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'Unchanged', steps: form.steps });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 1, updated_at: form.updated_at });
    expect((await api.call('get', `/v1/forms/${form.id}/versions`)).body.data).toHaveLength(1);
  });

  it('when steps are sent, then they replace the old ones whole', async () => {
    const form = await create(formBody('Replace steps'));
    const steps: FormRequest['steps'] = [
      { id: 'only', title: 'Only step', fields: [{ type: 'number', ref: 'seats', label: 'Seats', minimum: 1 }] },
    ];
    const res = await api.call('patch', `/v1/forms/${form.id}`).send({ steps });
    expect(res.status).toBe(200);
    expect(res.body.steps).toHaveLength(1);
    expect(res.body.steps[0]).toMatchObject({ id: 'only', fields: [{ type: 'number', ref: 'seats', minimum: 1, required: false }] });
    expect(res.body.version).toBe(2);
    // The older snapshot keeps the old steps: snapshots are immutable.
    expect((await api.call('get', `/v1/forms/${form.id}/versions/1`)).body.steps).toEqual(form.steps);
  });

  it('when the body is empty, then 400 and nothing changes', async () => {
    const form = await create(formBody('Empty patch'));
    const res = await api.call('patch', `/v1/forms/${form.id}`).send({});
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual(['body  min_properties']);
    expect((await api.call('get', `/v1/forms/${form.id}`)).body.version).toBe(1);
  });

  it('when a read-only field (version, id) is sent, then 400 additional_property', async () => {
    const form = await create(formBody('Read-only fields'));
    const res = await api.call('patch', `/v1/forms/${form.id}`).send({ version: 7 });
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual(['body /version additional_property']);
  });

  it('when the new slug belongs to another form, then 409 slug_taken and nothing changes', async () => {
    await create({ name: 'Owner of slug', slug: 'owned-slug' });
    const form = await create({ name: 'Wants slug' });
    const res = await api.call('patch', `/v1/forms/${form.id}`).send({ slug: 'owned-slug' });
    expectProblem(res, 409, 'conflict_error', 'slug_taken');
    expect((await api.call('get', `/v1/forms/${form.id}`)).body).toMatchObject({ slug: 'wants-slug', version: 1 });
  });

  it('when several updates are made, then each is a version, listed newest first and readable one by one', async () => {
    const form = await create(formBody('Many versions'));
    for (const name of ['v2', 'v3', 'v4']) expect((await api.call('patch', `/v1/forms/${form.id}`).send({ name })).status).toBe(200);
    const page = await api.call('get', `/v1/forms/${form.id}/versions?limit=2`);
    expect(page.body.data.map((v: { version: number }) => v.version)).toEqual([4, 3]);
    expect(page.body.has_more).toBe(true);
    const rest = await api.call('get', `/v1/forms/${form.id}/versions?limit=2&starting_after=${page.body.data[1].id}`);
    expect(rest.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(rest.body.has_more).toBe(false);
    expectProblem(await api.call('get', `/v1/forms/${form.id}/versions/5`), 404, 'not_found', 'resource_not_found');
  });
});

describe('form versions', () => {
  it('when versions are listed, then each is a summary without its definition, which GET …/versions/{version} returns', async () => {
    const form = await create(formBody('Summaries'));
    const logic = [
      { id: 'skip', from_step: 'contact', when: { field: 'email', op: 'is_answered' }, then: { action: 'jump_to_step', step: 'company' } },
    ];
    expect((await api.call('patch', `/v1/forms/${form.id}`).send({ logic })).status).toBe(200);

    const { secret: readKey } = await api.createKey({ environment: 'live', scope: 'read' });
    const res = await api.call('get', `/v1/forms/${form.id}/versions`, readKey);
    expect(res.status).toBe(200);
    expectEnvelopeHeaders(res);
    const fieldCount = (form.steps as Array<{ fields: unknown[] }>).reduce((sum, step) => sum + step.fields.length, 0);
    const [latest, first] = res.body.data;
    expect(Object.keys(latest).sort()).toEqual(
      [
        'id',
        'object',
        'form_id',
        'version',
        'name',
        'slug',
        'step_count',
        'field_count',
        'logic_rule_count',
        'scoring_rule_count',
        'definition_bytes',
        'created_at',
      ].sort(),
    );
    expect(latest).toMatchObject({ object: 'form_version', form_id: form.id, version: 2, logic_rule_count: 1, field_count: fieldCount });
    expect(first).toMatchObject({ version: 1, step_count: form.steps.length, logic_rule_count: 0, scoring_rule_count: 0 });

    const full = await api.call('get', `/v1/forms/${form.id}/versions/2`, readKey);
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ id: latest.id, version: 2, steps: form.steps, logic });
    const serialized = JSON.stringify({ steps: full.body.steps, logic: full.body.logic, scoring: full.body.scoring });
    expect(latest.definition_bytes).toBe(Buffer.byteLength(serialized));
  });

  it(`when an update publishes more than ${KEPT_VERSIONS} versions, then only the latest ${KEPT_VERSIONS} are kept and older ones are 404`, async () => {
    const form = await create({ name: 'Busy form' });
    const last = KEPT_VERSIONS + 2;
    for (let version = 2; version <= last; version++) {
      expect((await api.call('patch', `/v1/forms/${form.id}`).send({ name: `Busy v${version}` })).status).toBe(200);
    }
    const page = await api.call('get', `/v1/forms/${form.id}/versions?limit=100`);
    expect(page.body.data.map((v: { version: number }) => v.version)).toEqual(
      Array.from({ length: KEPT_VERSIONS }, (_, index) => last - index),
    );
    expect(page.body.has_more).toBe(false);
    for (const gone of [1, 2]) {
      const res = await api.call('get', `/v1/forms/${form.id}/versions/${gone}`);
      expectProblem(res, 404, 'not_found', 'resource_not_found');
      expect(res.body.message).toBe(`Version ${gone} of this form is no longer kept: only the latest ${KEPT_VERSIONS} are.`);
    }
    expect((await api.call('get', `/v1/forms/${form.id}/versions/3`)).body).toMatchObject({ version: 3, name: 'Busy v3' });
    expect(await api.rows('SELECT COUNT(*) AS n FROM form_versions WHERE form_id = ?', form.id)).toEqual([{ n: KEPT_VERSIONS }]);
  });
});

describe('definition size limit', () => {
  const parts = maxSizeFormParts(MAX_DEFINITION_BYTES);
  /** The same definition one byte over the limit: the first step's title is one character longer. */
  const oneByteOver = () => {
    const body = structuredClone(maxSizeFormBody(parts, 'Too large')) as { steps: Array<{ title: string }> };
    body.steps[0]!.title += 'x';
    return body;
  };

  it(`when a definition takes exactly ${MAX_DEFINITION_BYTES} bytes, then 201; one byte more, then 422 form_too_large pointing at steps`, async () => {
    expect(parts.bytes).toBe(MAX_DEFINITION_BYTES);
    const created = await create(maxSizeFormBody(parts, 'Largest allowed'));
    const versions = await api.call('get', `/v1/forms/${created.id}/versions`);
    expect(versions.body.data[0].definition_bytes).toBe(MAX_DEFINITION_BYTES);

    const res = await api.call('post', '/v1/forms').send(oneByteOver());
    expectProblem(res, 422, 'validation_error', 'form_too_large');
    expect(res.body.details.errors).toEqual([
      {
        location: 'body',
        pointer: '/steps',
        code: 'definition_too_large',
        message: expect.stringContaining(`${MAX_DEFINITION_BYTES + 1} bytes of JSON, more than ${MAX_DEFINITION_BYTES}`),
      },
    ]);
  });

  it('when an update would make the definition too large, then 422 form_too_large and the form keeps its version', async () => {
    const form = await create(maxSizeFormBody(parts, 'Grows'));
    const res = await api.call('patch', `/v1/forms/${form.id}`).send({ steps: oneByteOver().steps });
    expectProblem(res, 422, 'validation_error', 'form_too_large');
    expect(issuesOf(res)).toEqual(['body /steps definition_too_large']);
    expect((await api.call('get', `/v1/forms/${form.id}`)).body.version).toBe(1);
  });
});

describe('DELETE /v1/forms/{id}', () => {
  it('when a form with versions is deleted, then 200 deleted, and the form and its snapshots are gone', async () => {
    const form = await create(formBody('Delete me'));
    await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'Delete me v2' });
    const countVersions = async () => (await api.rows('SELECT COUNT(*) AS n FROM form_versions WHERE form_id = ?', form.id))[0]!.n;
    expect(await countVersions()).toBe(2);

    const res = await api.call('delete', `/v1/forms/${form.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: form.id, object: 'form', deleted: true, request_id: res.headers['x-request-id'] });

    expect(await countVersions()).toBe(0);
    expectProblem(await api.call('get', `/v1/forms/${form.id}`), 404, 'not_found', 'resource_not_found');
    expectProblem(await api.call('get', `/v1/forms/${form.id}/versions`), 404, 'not_found', 'resource_not_found');
    expectProblem(await api.call('delete', `/v1/forms/${form.id}`), 404, 'not_found', 'resource_not_found');
    // Its slug is free again.
    expect((await create({ name: 'Delete me' })).slug).toBe('delete-me');
  });
});

describe('pagination of GET /v1/forms', () => {
  let clock = Date.parse('2030-06-01T00:00:00.000Z');
  const paged = useWatchedApi({ rateLimits: generousLimits, now: () => new Date(clock) });
  let created: string[];

  beforeAll(async () => {
    created = [];
    // Three forms per millisecond: ties on created_at must be broken by id, with no duplicates or gaps.
    for (let i = 0; i < 45; i++) {
      clock = Date.parse('2030-06-01T00:00:00.000Z') + Math.floor(i / 3);
      const res = await paged.call('post', '/v1/forms').send({ name: `Paged ${i}` });
      expect(res.status).toBe(201);
      created.push(res.body.id);
    }
  });

  const page = async (query: string) => {
    const res = await paged.call('get', `/v1/forms?${query}`);
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    return { ids: res.body.data.map((form: { id: string }) => form.id) as string[], hasMore: res.body.has_more as boolean, body: res.body };
  };

  it('when paging forward with limit 20, then 20 + 20 + 5, newest first, no duplicates or gaps, has_more right', async () => {
    const p1 = await page('limit=20');
    const p2 = await page(`limit=20&starting_after=${p1.ids.at(-1)}`);
    const p3 = await page(`limit=20&starting_after=${p2.ids.at(-1)}`);
    expect([p1.ids.length, p2.ids.length, p3.ids.length]).toEqual([20, 20, 5]);
    expect([p1.hasMore, p2.hasMore, p3.hasMore]).toEqual([true, true, false]);
    const all = [...p1.ids, ...p2.ids, ...p3.ids];
    expect(new Set(all).size).toBe(45);
    // Newest first: created_at descending, then id descending among equal times.
    const expected = created
      .map((id, i) => ({ id, at: Math.floor(i / 3) }))
      .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
      .map((entry) => entry.id);
    expect(all).toEqual(expected);
  });

  it('when paging backward with ending_before from the last page, then the same pages come back in order', async () => {
    const p1 = await page('limit=20');
    const p2 = await page(`limit=20&starting_after=${p1.ids.at(-1)}`);
    const p3 = await page(`limit=20&starting_after=${p2.ids.at(-1)}`);
    const back2 = await page(`limit=20&ending_before=${p3.ids[0]}`);
    expect(back2.ids).toEqual(p2.ids);
    expect(back2.hasMore).toBe(true);
    const back1 = await page(`limit=20&ending_before=${back2.ids[0]}`);
    expect(back1.ids).toEqual(p1.ids);
    expect(back1.hasMore).toBe(false);
    const none = await page(`limit=20&ending_before=${p1.ids[0]}`);
    expect(none.ids).toEqual([]);
    expect(none.hasMore).toBe(false);
  });

  it('when the limit is omitted, then 20 come back; when it is 100, then all 45', async () => {
    expect((await page('')).ids).toHaveLength(20);
    const all = await page('limit=100');
    expect(all.ids).toHaveLength(45);
    expect(all.hasMore).toBe(false);
  });

  it('when paging by 7 in both directions, then every form is seen exactly once', async () => {
    const forward: string[] = [];
    let cursor = '';
    for (;;) {
      const p = await page(`limit=7${cursor}`);
      forward.push(...p.ids);
      if (!p.hasMore) break;
      cursor = `&starting_after=${p.ids.at(-1)}`;
    }
    expect(forward).toHaveLength(45);
    const backward: string[] = [];
    cursor = `&ending_before=${forward.at(-1)}`;
    for (;;) {
      const p = await page(`limit=7${cursor}`);
      backward.unshift(...p.ids);
      if (!p.hasMore) break;
      cursor = `&ending_before=${p.ids[0]}`;
    }
    expect([...backward, forward.at(-1)]).toEqual(forward);
  });

  it('when a cursor from another list is used, then 400 invalid_cursor', async () => {
    const foreign = await create({ name: 'Foreign cursor' });
    const res = await paged.call('get', `/v1/forms?starting_after=${foreign.id}`);
    expectProblem(res, 400, 'validation_error', 'invalid_cursor');
  });
});

describe('deleting a form with attached keys', () => {
  it('when a form is deleted, then the keys attached to it are revoked with cause form_deleted and audited', async () => {
    const form = (await api.call('post', '/v1/forms').send({ name: 'Short-lived' })).body;
    const key = await api.createKey({ environment: 'live', scope: 'read', attachment: { type: 'form', form_id: form.id } });
    expect((await api.call('delete', `/v1/forms/${form.id}`)).status).toBe(200);
    expect((await api.call('get', '/v1/me', key.secret)).status).toBe(401);
    const record = await api.call('get', `/v1/api_keys/${key.id}`);
    expect(record.body).toMatchObject({ status: 'revoked', revocation_cause: 'form_deleted' });
    const audit = await api.call('get', '/v1/audit_events?type=api_key.revoked&limit=100');
    expect(audit.body.data.some((event: { target: { id: string } }) => event.target.id === key.id)).toBe(true);
  });
});
