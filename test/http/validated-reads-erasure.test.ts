/**
 * The memory of validated reads (src/http/validated-responses.ts) keeps the text of bodies that passed, which can
 * hold a person's answers: an erasure that answered 200 empties it, one that failed leaves it.
 */
import express, { type Response } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../src/http/contract-document.js';
import { stateOf } from '../../src/http/locals.js';
import { rememberValidatedReads } from '../../src/http/validated-responses.js';

/** An app whose stand-in validator counts the bodies it is asked to check, as the real one sits before the memory. */
function appWithMemory() {
  const checked: unknown[] = [];
  const app = express();
  app.use((req, res, next) => {
    const operationId = req.path === '/erase' ? 'eraseSubmissions' : 'getSubmission';
    stateOf(res).operation = { operationId } as Operation;
    const send = res.json.bind(res);
    res.json = (body: unknown): Response => {
      checked.push(body);
      return send(body);
    };
    next();
  });
  app.use(rememberValidatedReads());
  app.get('/read', (_req, res) => {
    res.json({ object: 'submission', answers: { email: 'nia@example.org' }, request_id: 'req_1' });
  });
  app.post('/erase', (req, res) => {
    res.status(req.query.fail === undefined ? 200 : 503).json({ request_id: 'req_2' });
  });
  return { app, checked };
}

const reads = (checked: unknown[]) => checked.filter((body) => (body as { object?: string }).object === 'submission').length;

describe('remembered validated reads and erasure', () => {
  it('when an erasure answers 200, then a read it remembered is checked again: its text was forgotten', async () => {
    const { app, checked } = appWithMemory();
    await request(app).get('/read').expect(200);
    await request(app).get('/read').expect(200);
    expect(reads(checked)).toBe(1);

    await request(app).post('/erase').expect(200);
    await request(app).get('/read').expect(200);

    expect(reads(checked)).toBe(2);
  });

  it('when an erasure fails, then the memory is kept', async () => {
    const { app, checked } = appWithMemory();
    await request(app).get('/read').expect(200);
    await request(app).post('/erase?fail').expect(503);
    await request(app).get('/read').expect(200);

    expect(reads(checked)).toBe(1);
  });
});
