/**
 * The request and response classes the listeners give the Express app (src/http/message-classes.ts): objects made
 * with the app's prototypes before Express sees them, with everything Express and Node do with them unchanged.
 */
import http, { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { buildApp } from '../../src/http/app.js';
import { isPlainConstructor, messageClassesOf } from '../../src/http/message-classes.js';
import { createHttpListener, createHttpsListener } from '../../src/listeners.js';
import { testCertificate } from '../support/harness.js';
import { createTestStore } from '../support/stores.js';

const limits = loadConfig({}).connectionLimits;

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** How each request and response arrived, before the app saw them. */
interface Arrival {
  requestPrototype: object | null;
  responsePrototype: object | null;
}

/** Each arrival had exactly these prototypes (compared by identity). */
function expectArrivals(arrivals: Arrival[], expected: Array<[object, object]>): void {
  expect(arrivals).toHaveLength(expected.length);
  expected.forEach(([requestPrototype, responsePrototype], index) => {
    expect(arrivals[index]!.requestPrototype).toBe(requestPrototype);
    expect(arrivals[index]!.responsePrototype).toBe(responsePrototype);
  });
}

async function serve(server: http.Server): Promise<{ base: string; arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    arrivals.push({ requestPrototype: Object.getPrototypeOf(request), responsePrototype: Object.getPrototypeOf(response) });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const scheme = server instanceof https.Server ? 'https' : 'http';
  return { base: `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals };
}

function get(
  url: string,
  options: { ca?: string; method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const { request } = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    request(url, options, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    })
      .on('error', reject)
      .end();
  });
}

/** An app that answers with what Express's request and response prototypes give it. */
function echoApp(): Express {
  const app = express();
  app.get('/echo', (req, res) => {
    res
      .set('X-Echo', 'yes')
      .status(203)
      .json({
        path: req.path,
        query: req.query,
        host: req.get('host'),
        isNodeRequest: req instanceof IncomingMessage,
        isNodeResponse: res instanceof ServerResponse,
        ownPrototypes: Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response,
      });
  });
  return app;
}

describe('messageClassesOf', () => {
  it('builds requests and responses with the app’s prototypes before Express sees them, and Express works as before', async () => {
    const app = echoApp();
    const { base, arrivals } = await serve(http.createServer(messageClassesOf(app), app));

    const answer = await get(`${base}/echo?a=1&b=two`);

    expect(answer.status).toBe(203);
    expect(answer.headers['x-echo']).toBe('yes');
    expect(JSON.parse(answer.body)).toEqual({
      path: '/echo',
      query: { a: '1', b: 'two' },
      host: base.slice('http://'.length),
      isNodeRequest: true,
      isNodeResponse: true,
      ownPrototypes: true,
    });
    // So Express's own `setPrototypeOf` finds the prototype already there and changes nothing.
    expectArrivals(arrivals, [[app.request, app.response]]);

    // HEAD, whose response Node builds knowing the request's method: the GET's status and headers.
    const head = await get(`${base}/echo`, { method: 'HEAD' });
    expect(head).toMatchObject({ status: 203, body: '' });
    expect(head.headers['content-type']).toMatch(/^application\/json/);
  });

  it('applies only constructors that run on any `this`: plain functions, not classes or bound functions', () => {
    expect(isPlainConstructor(IncomingMessage)).toBe(true);
    expect(isPlainConstructor(ServerResponse)).toBe(true);
    expect(isPlainConstructor(class Message {})).toBe(false);
    expect(isPlainConstructor(class extends IncomingMessage {})).toBe(false);
    expect(isPlainConstructor(IncomingMessage.bind(null))).toBe(false);
    expect(isPlainConstructor(() => undefined)).toBe(false);
    expect(isPlainConstructor({})).toBe(false);
  });

  it('leaves Node’s classes to a listener that is not an Express app', async () => {
    const handler = (_request: IncomingMessage, response: ServerResponse) => void response.end('plain');
    expect(messageClassesOf(handler)).toEqual({});
    // A function carrying objects that are not Node's messages is not taken for an app.
    expect(messageClassesOf(Object.assign(() => undefined, { request: {}, response: {} }))).toEqual({});

    const { base, arrivals } = await serve(http.createServer(messageClassesOf(handler), handler));
    expect((await get(`${base}/`)).body).toBe('plain');
    expectArrivals(arrivals, [[IncomingMessage.prototype, ServerResponse.prototype]]);
  });

  it('lets an app mounted in another have its own prototypes inside, and the outer app’s after', async () => {
    const outer = express();
    const inner = express();
    const seen: string[] = [];
    inner.use((req, res, next) => {
      seen.push(`inner: ${Object.getPrototypeOf(req) === inner.request && Object.getPrototypeOf(res) === inner.response}`);
      next();
    });
    outer.use('/inner', inner);
    outer.use((req, res) => {
      seen.push(`outer: ${Object.getPrototypeOf(req) === outer.request && Object.getPrototypeOf(res) === outer.response}`);
      res.send('done');
    });
    const { base, arrivals } = await serve(http.createServer(messageClassesOf(outer), outer));

    expect((await get(`${base}/inner/x`)).body).toBe('done');
    expect(seen).toEqual(['inner: true', 'outer: true']);
    expectArrivals(arrivals, [[outer.request, outer.response]]);
  });

  it('is what the listeners build their servers with, over HTTPS and plain HTTP', async () => {
    const { key, cert } = await testCertificate();
    const secureApp = echoApp();
    const plainApp = echoApp();
    for (const [app, listener] of [
      [secureApp, createHttpsListener({ key, cert }, secureApp, limits)],
      [plainApp, createHttpListener(plainApp, limits)],
    ] as const) {
      const { base, arrivals } = await serve(listener.server);
      expect(JSON.parse((await get(`${base}/echo`, { ca: cert })).body)).toMatchObject({ path: '/echo', ownPrototypes: true });
      expectArrivals(arrivals, [[app.request, app.response]]);
    }
  });

  it('is an option: the API served by a server made without it answers as with it', async () => {
    const store = await createTestStore();
    const built = buildApp({ store });
    const { key, cert } = await testCertificate();
    try {
      const workspace = await bootstrapWorkspace(built.services, { name: 'Plain', plan: 'business' });
      const headers = { authorization: `Bearer ${workspace.live_admin_key}` };
      const answers: unknown[] = [];
      for (const [options, arrivesWith] of [
        [{}, IncomingMessage.prototype],
        [messageClassesOf(built.app), built.app.request],
      ] as const) {
        const { base, arrivals } = await serve(https.createServer({ key, cert, ...options }, built.app));
        const me = await get(`${base}/v1/me`, { ca: cert, headers });
        const missing = await get(`${base}/v1/forms/form_000000000000000000000000`, { ca: cert, headers });
        expect(arrivals.map((arrival) => arrival.requestPrototype === arrivesWith)).toEqual([true, true]);
        answers.push({
          me: { status: me.status, body: { ...JSON.parse(me.body), request_id: undefined } },
          missing: { status: missing.status, type: missing.headers['content-type'], code: JSON.parse(missing.body).code },
        });
      }
      expect(answers[0]).toMatchObject({ me: { status: 200, body: { object: 'me', scope: 'admin' } }, missing: { status: 404 } });
      expect(answers[1]).toEqual(answers[0]);
    } finally {
      await store.close();
    }
  });
});
