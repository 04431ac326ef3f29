/**
 * No error escapes the contract: an export names only forms the key can see or answers 404 before its first
 * byte, and whatever goes wrong while a problem is written (a status the operation does not declare, a body
 * that cannot be serialised), the client gets a 500 problem+json with the request id, never Express's HTML page
 * with a stack trace, whatever NODE_ENV says; a download that breaks after its headers is cut, not appended to.
 */
import https from 'node:https';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { badRequest, conflict } from '../../src/domain/errors.js';
import { handlers } from '../../src/http/handlers/index.js';
import type { Handlers } from '../../src/http/handlers/types.js';
import { createForm, formBody } from '../support/factories.js';
import { createTestApi, type TestApi } from '../support/harness.js';
import { absentId, expectProblem, internals, useWatchedApi } from '../support/http-checks.js';
import { schemaErrors } from './integrations-support.js';

const api = useWatchedApi();

describe('GET /v1/submissions/export: a form the key cannot see', () => {
  const formats = ['csv', 'ndjson'] as const;

  it.each(formats)('when form_id names no form, then %s answers 404 resource_not_found as problem+json', async (format) => {
    const res = await api.call('get', `/v1/submissions/export?form_id=${absentId('form')}&format=${format}`);
    expectProblem(res, 404, 'not_found', 'resource_not_found');
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it.each(formats)("when form_id names another workspace's form, then %s answers 404", async (format) => {
    const other = await api.otherWorkspace();
    const theirs = await createForm(api, formBody('Theirs'), other.live_admin_key);
    const res = await api.call('get', `/v1/submissions/export?form_id=${theirs.id}&format=${format}`);
    expectProblem(res, 404, 'not_found', 'resource_not_found');
  });

  it.each(formats)('when a live key names a test-mode form, then %s answers 404, and the test key may export it', async (format) => {
    const sandboxed = await createForm(api, formBody(`Sandboxed ${format}`), api.workspace.test_admin_key);
    const res = await api.call('get', `/v1/submissions/export?form_id=${sandboxed.id}&format=${format}`);
    expectProblem(res, 404, 'not_found', 'resource_not_found');
    const own = await api.call('get', `/v1/submissions/export?form_id=${sandboxed.id}&format=${format}`, api.workspace.test_admin_key);
    expect(own.status).toBe(200);
  });
});

/** An app whose handlers are replaced where given, with its error log kept, built under the given NODE_ENV. */
async function appWith(overrides: Partial<Handlers>, nodeEnv: string | undefined) {
  // Express reads NODE_ENV once, when the app is made: its final handler shows stack traces outside production.
  vi.stubEnv('NODE_ENV', nodeEnv);
  const logged: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  const built = await createTestApi({ handlers: { ...handlers, ...overrides } as Handlers, logger });
  return Object.assign(built, { logged });
}

const nodeEnvs = [undefined, 'production', 'development'];
let opened: TestApi | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

describe('a problem the contract does not allow', () => {
  it.each(nodeEnvs)(
    'when a handler throws a status its operation does not declare (NODE_ENV=%s), then 500 internal_error as problem+json, logged with the request id',
    async (nodeEnv) => {
      // GET /v1/me declares no 409.
      const app = await appWith({ getMe: () => Promise.reject(conflict('slug_taken', 'Not an answer /me can give.')) }, nodeEnv);
      opened = app;
      const res = await app.call('get', '/v1/me');
      expectProblem(res, 500, 'server_error', 'internal_error');
      expect(schemaErrors('Problem', res.body)).toEqual([]);
      expect(res.text).not.toMatch(/<html|<pre>|Not an answer/i);
      expect(res.text).not.toMatch(internals);
      expect(app.logged).toContainEqual(
        expect.objectContaining({ msg: 'problem broke the contract', request_id: res.body.request_id, status: 409 }),
      );
    },
  );

  it.each(nodeEnvs)(
    'when writing the problem itself throws (NODE_ENV=%s), then 500 internal_error as problem+json, logged',
    async (nodeEnv) => {
      // An error whose details cannot be read: building the problem throws inside the error handler.
      const unreadable = badRequest('invalid_parameters', 'x');
      Object.defineProperty(unreadable, 'details', {
        get() {
          throw new Error('details lost at /srv/app/details.ts:1:1');
        },
      });
      const app = await appWith({ listForms: () => Promise.reject(unreadable) }, nodeEnv);
      opened = app;
      const res = await app.call('get', '/v1/forms');
      expectProblem(res, 500, 'server_error', 'internal_error');
      expect(schemaErrors('Problem', res.body)).toEqual([]);
      expect(res.text).not.toMatch(internals);
      expect(app.logged).toContainEqual(expect.objectContaining({ msg: 'error handler failed', request_id: res.body.request_id }));
    },
  );

  it('when a handler answers a body off its schema, then 500 internal_error, and the log names the violation with the request id', async () => {
    const app = await appWith({ getMe: async () => ({ status: 200, body: { object: 'nonsense' } as never }) }, undefined);
    opened = app;
    const res = await app.call('get', '/v1/me');
    expectProblem(res, 500, 'server_error', 'internal_error');
    expect(app.logged).toContainEqual(
      expect.objectContaining({ msg: 'response broke the contract', request_id: res.body.request_id, violation: expect.any(Array) }),
    );
  });

  it('when a download fails before its first byte, then 500 internal_error as problem+json, not an attachment', async () => {
    async function* chunks(): AsyncGenerator<string> {
      yield* [];
      throw new Error('disk gone');
    }
    const stream = { contentType: 'text/csv; charset=utf-8', chunks: chunks() };
    const headers = { 'Content-Disposition': 'attachment; filename="submissions.csv"' };
    const app = await appWith({ exportSubmissions: async () => ({ status: 200, stream, headers }) }, undefined);
    opened = app;
    const res = await app.call('get', '/v1/submissions/export');
    expectProblem(res, 500, 'server_error', 'internal_error');
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it.each(nodeEnvs)(
    'when a download fails after its first bytes (NODE_ENV=%s), then the connection is cut and nothing is appended',
    async (nodeEnv) => {
      // The failure waits until the client holds the first line, so what it sees after it is all the server added.
      let firstLineArrived: () => void = () => {};
      const arrived = new Promise<void>((resolve) => {
        firstLineArrived = resolve;
      });
      async function* chunks() {
        yield 'first line\n';
        await arrived;
        throw new Error('disk gone at /srv/data');
      }
      const app = await appWith(
        {
          exportSubmissions: async () => ({
            status: 200,
            stream: { contentType: 'application/x-ndjson; charset=utf-8', chunks: chunks() },
          }),
        },
        nodeEnv,
      );
      opened = app;
      const received = await new Promise<{ text: string; complete: boolean }>((resolve) => {
        const req = https.get(
          `${app.baseUrl}/v1/submissions/export`,
          { ca: app.certificate, headers: { Authorization: `Bearer ${app.workspace.live_admin_key}` } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              text += chunk;
              if (text.includes('\n')) firstLineArrived();
            });
            res.on('end', () => resolve({ text, complete: res.complete }));
            res.on('error', () => resolve({ text, complete: false }));
          },
        );
        req.on('error', () => resolve({ text: '', complete: false }));
      });
      expect(received).toEqual({ text: 'first line\n', complete: false });
    },
  );
});
