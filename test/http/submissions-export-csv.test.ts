/**
 * The CSV export's cells as a spreadsheet user meets them: timestamps in their own columns, answers under the
 * columns of the version each submission was made on, and every way of starting a formula neutralised.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { parseCsv } from '../support/csv.js';
import { createForm, type Form, submit } from '../support/factories.js';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';
import { demoForm, noBudgetAnswers } from './submissions-support.js';

const api = useWatchedApi({ rateLimits: generousLimits });

/** The CSV export of a form, as records of named cells. */
async function exported(formId: string): Promise<Array<Record<string, string>>> {
  const res = await api
    .call('get', `/v1/submissions/export?form_id=${formId}&format=csv`)
    .buffer(true)
    .parse((stream, done) => {
      let text = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        text += chunk;
      });
      stream.on('end', () => done(null, text));
    });
  expect(res.status).toBe(200);
  const [header, ...rows] = parseCsv(res.body as string);
  return rows.map((row) => Object.fromEntries(header!.map((name, index) => [name, row[index]!])));
}

let form: Form;
beforeAll(async () => {
  form = await createForm(api, demoForm({ name: 'CSV cells' }));
});

describe('GET /v1/submissions/export?format=csv: cells', () => {
  it('when created_at and updated_at differ, then each is in its own column', async () => {
    const template = await submit(api, { form_id: form.id, answers: noBudgetAnswers() });
    // Straight into the store: an update hours after the creation, which a test cannot wait for.
    const submission = {
      ...template,
      id: newId('sub'),
      created_at: '2026-03-01T09:00:00.000Z',
      updated_at: '2026-03-02T17:30:00.000Z',
    };
    await api.store.submissions.insert({ submission, workspaceId: api.workspace.workspace_id, environment: 'live' });
    const row = (await exported(form.id)).find((record) => record.id === submission.id)!;
    expect({ created_at: row.created_at, updated_at: row.updated_at }).toEqual({
      created_at: '2026-03-01T09:00:00.000Z',
      updated_at: '2026-03-02T17:30:00.000Z',
    });
  });

  it("when a field was removed in a later version, then its column stays and each row is read with the submission's own version", async () => {
    const changing = await createForm(api, demoForm({ name: 'Versions' }));
    const before = await submit(api, { form_id: changing.id, answers: { ...noBudgetAnswers(), notes: 'asked on version 1' } });
    // Version 2: the notes field is gone and a phone field is new.
    const steps = changing.steps.map((step) => ({ ...step, fields: step.fields.filter((field) => field.ref !== 'notes') }));
    steps.push({ id: 'call', title: 'Call', fields: [{ type: 'phone', ref: 'phone', label: 'Phone', required: false }] } as never);
    const updated = await api.call('patch', `/v1/forms/${changing.id}`).send({ steps });
    expect(updated.status).toBe(200);
    const after = await submit(api, { form_id: changing.id, answers: { ...noBudgetAnswers(), phone: '+493012345678' } });

    const rows = await exported(changing.id);
    expect(Object.keys(rows[0]!)).toEqual(expect.arrayContaining(['notes', 'phone']));
    expect(rows.find((row) => row.id === before.id)).toMatchObject({ form_version: '1', notes: 'asked on version 1', phone: '' });
    // A text answer starting with `+` is text: neutralised like any other.
    expect(rows.find((row) => row.id === after.id)).toMatchObject({ form_version: '2', notes: '', phone: "'+493012345678" });
  });

  it.each([
    ['a leading space', ' =HYPERLINK("https://evil.example","x")'],
    ['a no-break space', '\u00A0=1+1'],
    ['an ideographic space', '\u3000@SUM(A1)'],
    ['a full-width equals sign', '＝cmd|calc'],
    ['a full-width plus sign', '＋1'],
    ['a full-width at sign', '＠SUM(A1)'],
    ['a pipe', "|cmd /C calc'!A0"],
    ['a full-width pipe', '｜calc'],
  ])('when an answer starts with %s before a formula, then its cell starts with an apostrophe', async (_name, notes) => {
    const s = await submit(api, { form_id: form.id, answers: { ...noBudgetAnswers(), notes } });
    const row = (await exported(form.id)).find((record) => record.id === s.id)!;
    expect(row.notes).toBe(`'${notes}`);
  });

  it('when a score is negative, then its cell is the number, not text', async () => {
    const scored = await createForm(
      api,
      demoForm({
        name: 'Negative scores',
        scoring: { rules: [{ id: 'no_budget', when: { field: 'has_budget', op: 'equals', value: false }, points: -30 }], grades: [] },
      }),
    );
    const s = await submit(api, { form_id: scored.id, answers: noBudgetAnswers() });
    expect(s.score).toBeLessThan(0);
    const row = (await exported(scored.id)).find((record) => record.id === s.id)!;
    expect(row.score).toBe(String(s.score));
  });
});
