// An example test to grow: it builds the app in the test process and calls it over plain HTTP on a free port.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { buildApp } from '../src/app.js';
import { handlers } from '../src/handlers/index.js';

let server: Server;
let baseUrl = '';
before(async () => {
  server = buildApp({ handlers }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('when the key is missing, then 401 invalid_api_key with the request id in header and body', async () => {
  const response = await fetch(`${baseUrl}/me`);
  assert.equal(response.status, 401);
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = (await response.json()) as { code: string; request_id: string };
  assert.equal(body.code, 'invalid_api_key');
  assert.equal(body.request_id, response.headers.get('x-request-id'));
});
