import { describe, expect, it } from 'vitest';
import { createForm, type Form, submit } from '../support/factories.js';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';
import { budgetAnswers, demoForm } from './submissions-support.js';

const api = useWatchedApi({ rateLimits: generousLimits });

describe('smoke', () => {
  it('exports', async () => {
    const form: Form = await createForm(api, demoForm());
    await submit(api, { form_id: form.id, answers: budgetAnswers(80000) });
    const res = await api.call('get', `/v1/submissions/export?form_id=${form.id}`).buffer(true).parse((r, cb) => { let t=''; r.on('data', (c: Buffer) => t += c); r.on('end', () => cb(null, t)); });
    console.log(res.status, res.headers, res.body);
    const csv = await api.call('get', `/v1/submissions/export?form_id=${form.id}&format=csv`).buffer(true).parse((r, cb) => { let t=''; r.on('data', (c: Buffer) => t += c); r.on('end', () => cb(null, t)); });
    console.log(csv.status, csv.headers, csv.body);
    const list = await api.call('get', `/v1/submissions?sort=-score&grade=B&grade=A&q=KIM`);
    console.log(list.status, list.body);
    const bad = await api.call('get', `/v1/submissions/export`).set('Accept', 'application/xml');
    console.log(bad.status, bad.body);
  });
});
