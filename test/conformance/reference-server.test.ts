/**
 * The conformance kit against the reference server, started as an operator starts it (SQLite, its own data
 * directory), with keys made by `npm run admin -- bootstrap` as the README shows: every operation passes, removing a
 * member and exchanging a code too once the run is handed a second member and a consent's code. Then the same server
 * behind a proxy that breaks two answers: the kit finds exactly those, so a pass is not a given.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConformanceContract, loadConformanceContract } from '../../src/conformance/contract.js';
import { exitCodeOf, runConformance } from '../../src/conformance/run.js';
import type { Given } from '../../src/conformance/world.js';
import { newId } from '../../src/ids.js';
import { openStore } from '../../src/store/open.js';
import { type ServerProcess, singleProcessOnSqlite, startServerProcess } from '../e2e/support/server-process.js';

interface Bootstrapped {
  workspace_id: string;
  live_admin_key: string;
  test_admin_key: string;
}

/** Passes requests on to the server; `tamper` may change an answer on its way back. */
function startProxy(
  target: number,
  tamper: (request: http.IncomingMessage, answer: { status: number; headers: http.IncomingHttpHeaders; body: Buffer }) => void,
) {
  const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false });
  const proxy = http.createServer((request, response) => {
    const upstream = https.request(
      { host: '127.0.0.1', port: target, method: request.method, path: request.url, headers: request.headers, agent },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const answer = { status: incoming.statusCode ?? 502, headers: { ...incoming.headers }, body: Buffer.concat(chunks) };
          tamper(request, answer);
          delete answer.headers['transfer-encoding'];
          answer.headers['content-length'] = String(answer.body.length);
          response.writeHead(answer.status, answer.headers).end(answer.body);
        });
      },
    );
    upstream.on('error', () => response.writeHead(502).end());
    request.pipe(upstream);
  });
  return new Promise<{ url: string; close(): Promise<void> }>((resolve) => {
    proxy.listen(0, '127.0.0.1', () => {
      const { port } = proxy.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        close: () => {
          agent.destroy();
          proxy.closeAllConnections();
          return new Promise((done) => proxy.close(() => done()));
        },
      });
    });
  });
}

describe('the conformance kit against the reference server', () => {
  let server: ServerProcess;
  let contract: ConformanceContract;
  let main: Bootstrapped;
  let other: Bootstrapped;

  beforeAll(async () => {
    // Private webhook URLs, so that an integration may point at the loopback address the run gives it. This file
    // makes several runs within a minute from one address: the per-address budgets (public requests, failed
    // authentications) are raised so that one run does not spend the next one's.
    server = await startServerProcess(singleProcessOnSqlite, {
      env: {
        ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
        PUBLIC_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '1000',
        RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '1000',
      },
    });
    const bootstrap = async (name: string, plan = 'business') =>
      JSON.parse(await server.admin('bootstrap', '--workspace', name, '--plan', plan, '--json')) as Bootstrapped;
    // Enterprise, for OAuth: the first run exchanges a code of this workspace.
    main = await bootstrap('Conformance', 'enterprise');
    other = await bootstrap('Conformance receiver');
    contract = await loadConformanceContract();
  });

  /**
   * What only a person or the operator makes: a second member (through the store, as an operator's command does
   * beside the running server, until accepting an invite can do it from a test) and a consent's code from
   * `npm run admin -- oauth-authorize`, with what its exchange needs.
   */
  async function handedOver(): Promise<Required<Given>> {
    const store = await openStore({ databaseUrl: null, dataDir: server.dataDir }, { shortLived: true });
    const member = newId('mem');
    try {
      await store.team.addMember(main.workspace_id, {
        id: member,
        object: 'member',
        email: 'colleague@conformance.test',
        name: 'Colleague',
        role: 'viewer',
        created_at: new Date().toISOString(),
      });
    } finally {
      await store.close();
    }
    const redirectUri = 'https://partner.example/callback';
    const client = JSON.parse(await server.admin('oauth-client', '--name', 'Conformance partner', '--redirect-uri', redirectUri, '--json'));
    const codeVerifier = randomBytes(32).toString('base64url');
    const authorized = JSON.parse(
      await server.admin(
        'oauth-authorize',
        '--workspace',
        main.workspace_id,
        '--client-id',
        client.client_id,
        '--scope',
        'read',
        '--redirect-uri',
        redirectUri,
        `--code-challenge=${createHash('sha256').update(codeVerifier).digest('base64url')}`,
        '--json',
      ),
    );
    return { member, authorization: { code: authorized.code, codeVerifier, clientId: client.client_id, redirectUri } };
  }

  afterAll(async () => {
    await server?.stop();
  });

  const options = () => ({
    keys: { main: main.live_admin_key, otherWorkspace: other.live_admin_key },
    // Nothing listens there: deliveries fail and are retried, which no check waits for.
    webhookUrl: 'https://127.0.0.1:9/conformance',
    insecure: true,
    contract,
  });

  it('when run with a live admin key, a second workspace, a member to remove and a code, then every operation passes, and the exit code is 0', async () => {
    const given = await handedOver();
    const report = await runConformance({ ...options(), given, baseUrl: `https://127.0.0.1:${server.port}/v1` });

    const notPassed = report.operations.filter((result) => result.outcome !== 'pass');
    expect(notPassed.map(({ operationId, outcome, failures }) => ({ operationId, outcome, failures }))).toEqual([]);
    const resultOf = (operationId: string) => report.operations.find((result) => result.operationId === operationId)!;
    // The happy paths that need what no operation makes ran for real: the member removed, the code exchanged, the
    // tokens refreshed and the grant revoked, and each then shown to open nothing.
    expect(resultOf('removeMember').passed).toEqual(expect.arrayContaining(['positive_data_acceptance', 'use_after_free']));
    expect(resultOf('createOAuthToken').passed).toEqual(expect.arrayContaining(['positive_data_acceptance', 'negative_data_rejection']));
    expect(resultOf('revokeOAuthToken').passed).toContain('positive_data_acceptance');
    expect(resultOf('getMe').passed).toContain('use_after_free');
    expect(resultOf('resendInvite').passed).toEqual(expect.arrayContaining(['positive_data_acceptance', 'negative_data_rejection']));
    for (const operationId of ['removeMember', 'createOAuthToken', 'revokeOAuthToken']) expect(resultOf(operationId).notes).toEqual([]);
    const store = await openStore({ databaseUrl: null, dataDir: server.dataDir }, { shortLived: true });
    try {
      expect(await store.team.getMember(main.workspace_id, given.member)).toBeUndefined();
    } finally {
      await store.close();
    }
    expect(report.operations.map((result) => result.operationId).sort()).toEqual(
      contract.operations.map((operation) => operation.operationId).sort(),
    );
    expect(exitCodeOf(report)).toBe(0);
    // The checks the issue names ran, each on at least one operation.
    const ran = new Set(report.operations.flatMap((result) => result.passed));
    for (const check of [
      'not_a_server_error',
      'status_code_conformance',
      'content_type_conformance',
      'response_headers_conformance',
      'response_schema_conformance',
      'request_id_conformance',
      'negative_data_rejection',
      'positive_data_acceptance',
      'use_after_free',
      'ensure_resource_availability',
      'ignored_auth',
      'scope_enforcement',
      'workspace_isolation',
      'pagination',
      'rate_limit_headers',
      'unsupported_method',
      'idempotency_replay',
      'conditional_request',
    ]) {
      expect(ran, check).toContain(check);
    }
    const getForm = report.operations.find((result) => result.operationId === 'getForm')!;
    expect(getForm.passed).toEqual(
      expect.arrayContaining(['use_after_free', 'workspace_isolation', 'ignored_auth', 'ensure_resource_availability']),
    );
    // The public operations ran with the publishable key the run made, and their refusals were checked: a secret
    // key, an origin the key does not allow, a revoked key, data their schemas refuse.
    const passedOf = (operationId: string) => report.operations.find((result) => result.operationId === operationId)!.passed;
    expect(passedOf('getPublicForm')).toEqual(
      expect.arrayContaining(['positive_data_acceptance', 'scope_enforcement', 'ignored_auth', 'negative_data_rejection']),
    );
    expect(passedOf('createPublicSubmission')).toEqual(
      expect.arrayContaining(['positive_data_acceptance', 'ensure_resource_availability', 'scope_enforcement', 'negative_data_rejection']),
    );
    expect(passedOf('updatePublicSubmission')).toEqual(expect.arrayContaining(['positive_data_acceptance', 'ignored_auth']));
    expect(passedOf('getMe')).toContain('scope_enforcement');
  });

  it('when run without --webhook-url, then createIntegration alone fails, saying to pass it, and the six operations that need its integration are not run because it failed', async () => {
    const report = await runConformance({ ...options(), webhookUrl: undefined, baseUrl: `https://127.0.0.1:${server.port}/v1` });

    const dependents = [
      'getIntegration',
      'updateIntegration',
      'deleteIntegration',
      'dispatchIntegration',
      'rotateIntegrationSecret',
      'listIntegrationLogs',
    ];
    const outcomes = Object.fromEntries(
      report.operations.filter((result) => result.outcome !== 'pass').map((result) => [result.operationId, result.outcome]),
    );
    expect(outcomes).toEqual({
      createIntegration: 'fail',
      ...Object.fromEntries(dependents.map((operationId) => [operationId, 'skipped'])),
      removeMember: 'skipped',
      createOAuthToken: 'skipped',
      revokeOAuthToken: 'skipped',
    });
    const resultOf = (operationId: string) => report.operations.find((result) => result.operationId === operationId)!;
    // Without --member and --oauth-code, the happy paths no operation can set up are skipped, saying what to pass,
    // and their documented refusals are checked instead.
    expect(resultOf('removeMember').notes).toEqual([expect.stringContaining('pass --member')]);
    expect(resultOf('createOAuthToken').notes).toEqual([expect.stringContaining('pass --oauth-code')]);
    expect(resultOf('revokeOAuthToken').notes).toEqual([expect.stringContaining('registered OAuth client')]);
    for (const operationId of ['removeMember', 'createOAuthToken', 'revokeOAuthToken']) {
      expect(resultOf(operationId).passed).toContain('negative_data_rejection');
    }
    expect(resultOf('createIntegration').failures).toEqual([
      expect.objectContaining({
        check: 'positive_data_acceptance',
        message: expect.stringMatching(/^an integration from the example: expected 201, got 422 .*: pass --webhook-url with an https URL/),
      }),
    ]);
    for (const operationId of dependents) {
      expect({ operationId, failures: resultOf(operationId).failures }).toEqual({ operationId, failures: [] });
      expect(resultOf(operationId).notes).toContain('not run because createIntegration failed');
    }
    expect(report.summary).toMatchObject({ fail: 1, skipped: dependents.length + 3 });
    expect(exitCodeOf(report)).toBe(1);
  });

  it('when createForm fails (a proxy turns its answers into 500s), then it alone fails and every operation that needs a form is not run because it failed', async () => {
    const proxy = await startProxy(server.port, (request, answer) => {
      if (request.method !== 'POST' || request.url?.split('?')[0] !== '/v1/forms') return;
      const requestId = String(answer.headers['x-request-id']);
      answer.status = 500;
      answer.headers['content-type'] = 'application/problem+json';
      answer.body = Buffer.from(
        JSON.stringify({
          type: 'server_error',
          code: 'internal_error',
          status: 500,
          title: 'Server error',
          message: 'Tampered.',
          request_id: requestId,
        }),
      );
    });
    try {
      const report = await runConformance({ ...options(), baseUrl: proxy.url });

      const failed = report.operations.filter((result) => result.outcome === 'fail');
      expect(failed.map((result) => result.operationId)).toEqual(['createForm']);
      const notRun = report.operations.filter((result) => result.notes.includes('not run because createForm failed'));
      // What works on the form, and what is made in it or for it, down to the public page's submissions.
      expect(notRun.map((result) => result.operationId)).toEqual(
        expect.arrayContaining([
          'getForm',
          'updateForm',
          'deleteForm',
          'listFormVersions',
          'createSubmission',
          'getSubmission',
          'rescoreForm',
          'getRescoreJob',
          'createIntegration',
          'getIntegration',
          'deleteIntegration',
          'transferForm',
          'acceptTransfer',
          'getPublicForm',
          'createPublicSubmission',
          'updatePublicSubmission',
        ]),
      );
      expect(exitCodeOf(report)).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it.each([
    ['--key', { main: 'svc_live_conformance0refused0key0000000000000' }],
    ['--key-other-workspace', { otherWorkspace: 'svc_live_conformance0refused0key0000000000000' }],
  ])('when %s is a key the server does not know, then the run stops before any check: the key was refused', async (option, keys) => {
    const run = runConformance({ ...options(), keys: { ...options().keys, ...keys }, baseUrl: `https://127.0.0.1:${server.port}/v1` });

    await expect(run).rejects.toThrow(
      new RegExp(`^the key was refused: GET /me with ${option} answered 401 \\(invalid_api_key: .*\\)\\. Pass a key this server issued`),
    );
  });

  it('when a proxy drops the request_id of getMe and the X-Request-Id of listFolders, then exactly those fail and the exit code is 1', async () => {
    const proxy = await startProxy(server.port, (request, answer) => {
      const path = request.url?.split('?')[0];
      if (request.method === 'GET' && path === '/v1/me' && answer.status === 200) {
        const { request_id: _dropped, ...body } = JSON.parse(answer.body.toString()) as Record<string, unknown>;
        answer.body = Buffer.from(JSON.stringify(body));
      }
      if (request.method === 'GET' && path === '/v1/folders') delete answer.headers['x-request-id'];
    });
    try {
      const report = await runConformance({ ...options(), baseUrl: proxy.url });

      const failed: Record<string, string[]> = Object.fromEntries(
        report.operations
          .filter((result) => result.outcome === 'fail')
          .map((result) => [result.operationId, [...new Set(result.failures.map((failure) => failure.check))].sort()]),
      );
      expect(failed).toEqual({
        getMe: ['request_id_conformance', 'response_schema_conformance'],
        // Its body's request_id then matches no header either.
        listFolders: ['request_id_conformance', 'response_headers_conformance'],
      });
      expect(exitCodeOf(report)).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});
