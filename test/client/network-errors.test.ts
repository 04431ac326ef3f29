/**
 * The client against the real server over TLS, with the global fetch (which does not trust the test
 * server's self-signed certificate), and against a port nobody listens on.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFormFunnelClient, type FetchLike, FormFunnelError } from '../../src/client/index.js';
import { createTestApi, type TestApi } from '../support/harness.js';
import { recordingSleep } from './fake-transport.js';

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

/** The global fetch, counting the attempts the client makes. */
function countingFetch() {
  let attempts = 0;
  const fetch: FetchLike = (request) => {
    attempts++;
    return globalThis.fetch(request);
  };
  return { fetch, attempts: () => attempts };
}

const closedPort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

describe('network failures against a real server', () => {
  it('when the server’s certificate is not trusted, then a network FormFunnelError names the certificate code after one attempt', async () => {
    const transport = countingFetch();
    const { sleep, delays } = recordingSleep();
    const client = createFormFunnelClient({
      apiKey: api.workspace.live_admin_key,
      baseUrl: `${api.baseUrl}/v1`,
      fetch: transport.fetch,
      sleep,
    });
    const thrown = await client.GET('/me').catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(FormFunnelError);
    const error = thrown as FormFunnelError;
    expect(error).toMatchObject({ kind: 'network', status: 0, code: undefined, requestId: undefined });
    expect(error.networkCode).toMatch(/^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)$/);
    expect(error.message).toContain('TLS certificate was rejected');
    expect(error.message).toContain('NODE_EXTRA_CA_CERTS');
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(transport.attempts()).toBe(1);
    expect(delays).toEqual([]);
  });

  it('when nothing listens on the port, then the GET is retried and ends in a network FormFunnelError with ECONNREFUSED', async () => {
    const port = await closedPort();
    const transport = countingFetch();
    const { sleep, delays } = recordingSleep();
    const client = createFormFunnelClient({
      apiKey: api.workspace.live_admin_key,
      baseUrl: `https://127.0.0.1:${port}/v1`,
      fetch: transport.fetch,
      sleep,
      maxRetries: 2,
    });
    const thrown = await client.GET('/me').catch((error: unknown) => error);
    expect(thrown).toMatchObject({ name: 'FormFunnelError', kind: 'network', networkCode: 'ECONNREFUSED' });
    expect((thrown as Error).message).toBe(
      `Form-Funnel API could not be reached (GET https://127.0.0.1:${port}/v1/me): connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect(transport.attempts()).toBe(3);
    expect(delays).toHaveLength(2);
  });
});
