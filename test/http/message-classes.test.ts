/**
 * The request and response classes the listeners give the Express app (src/http/message-classes.ts): objects made
 * with the app's prototypes before Express sees them, with everything Express and Node do with them unchanged.
 */
import http, { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { messageClassesOf } from '../../src/http/message-classes.js';
import { createHttpListener, createHttpsListener } from '../../src/listeners.js';
import { testCertificate } from '../support/harness.js';

const limits = {
  tlsHandshakeTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 10_000,
  maxConnections: 1000,
  maxConnectionsPerAddress: 0,
};

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

function get(url: string, ca?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const { request } = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    request(url, { ca }, (response) => {
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
    expect(arrivals).toEqual([{ requestPrototype: app.request, responsePrototype: app.response }]);
  });

  it('leaves Node’s classes to a listener that is not an Express app', async () => {
    const handler = (_request: IncomingMessage, response: ServerResponse) => void response.end('plain');
    expect(messageClassesOf(handler)).toEqual({});
    expect(messageClassesOf({ request: {}, response: {} })).toEqual({});

    const { base, arrivals } = await serve(http.createServer(messageClassesOf(handler), handler));
    expect((await get(`${base}/`)).body).toBe('plain');
    expect(arrivals).toEqual([{ requestPrototype: IncomingMessage.prototype, responsePrototype: ServerResponse.prototype }]);
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
    const { base } = await serve(http.createServer(messageClassesOf(outer), outer));

    expect((await get(`${base}/inner/x`)).body).toBe('done');
    expect(seen).toEqual(['inner: true', 'outer: true']);
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
      expect(JSON.parse((await get(`${base}/echo`, cert)).body)).toMatchObject({ path: '/echo', ownPrototypes: true });
      expect(arrivals).toEqual([{ requestPrototype: app.request, responsePrototype: app.response }]);
    }
  });
});
