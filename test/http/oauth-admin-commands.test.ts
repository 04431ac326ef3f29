/**
 * The operator commands that stand in for the dashboard, end to end: a workspace, a client and a consent
 * made with `npm run admin`, then the code exchanged and the token used over HTTPS against the same database.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminInProcess, runAdminProcess } from '../support/admin.js';
import { createTestApi } from '../support/harness.js';
import { createStoreDatabase, type TestDatabase } from '../support/stores.js';

let database: TestDatabase;
const redirectUri = 'https://partner.example/callback';

/**
 * `npm run admin -- <args>` against the test database (DATA_DIR or DATABASE_URL), run in this process
 * (test/support/admin.ts); one command starts the script itself.
 */
const admin = (...args: string[]) => runAdminInProcess(args, database.env);

let enterprise: string;
let business: string;
let clientId: string;

beforeAll(async () => {
  database = await createStoreDatabase();
  enterprise = JSON.parse((await admin('bootstrap', '--workspace', 'Big Co', '--plan', 'enterprise', '--json')).stdout).workspace_id;
  business = JSON.parse((await admin('bootstrap', '--workspace', 'Small Co', '--plan', 'business', '--json')).stdout).workspace_id;
  const registered = await admin('oauth-client', '--name', 'Partner', '--redirect-uri', redirectUri);
  expect(registered.code, registered.stderr).toBe(0);
  clientId = /client_id (\S+)/.exec(registered.stdout)![1]!;
});
afterAll(() => database.drop());

describe('npm run admin -- oauth-client / oauth-authorize', () => {
  it('when an operator registers a client and records a consent, then the printed code can be exchanged and the token used', async () => {
    // A challenge that begins with `-` (one in 64 do), which the usage's `--code-challenge=` form must take.
    let verifier: string;
    let challenge: string;
    do {
      verifier = randomBytes(32).toString('base64url');
      challenge = createHash('sha256').update(verifier).digest('base64url');
    } while (!challenge.startsWith('-'));
    // The script itself, as a process: the command line as an operator types it, the redirect on its stdout.
    const authorized = await runAdminProcess(
      [
        'oauth-authorize',
        '--workspace',
        enterprise,
        '--client-id',
        clientId,
        '--scope',
        'read read_write',
        '--redirect-uri',
        redirectUri,
        `--code-challenge=${challenge}`,
        '--state',
        's1',
      ],
      database.env,
    );
    expect(authorized.code, authorized.stderr).toBe(0);
    const redirect = new URL(authorized.stdout.trim());
    expect(redirect.searchParams.get('state')).toBe('s1');

    const api = await createTestApi({ store: await database.open() });
    try {
      const tokens = await api
        .call('post', '/v1/oauth/token', null)
        .type('form')
        .send(
          new URLSearchParams({
            grant_type: 'authorization_code',
            code: redirect.searchParams.get('code')!,
            redirect_uri: redirectUri,
            client_id: clientId,
            code_verifier: verifier,
          }).toString(),
        );
      expect(tokens.status).toBe(200);
      const me = await api.call('get', '/v1/me', tokens.body.access_token);
      expect(me.body).toMatchObject({
        auth_type: 'oauth_token',
        name: 'Partner',
        scope: 'read_write',
        workspace: { id: enterprise, plan: 'enterprise' },
      });
    } finally {
      await api.close();
    }
  });

  it('when the workspace is not on the Enterprise plan, then the command fails with a clear message and exit code 1', async () => {
    const refused = await admin(
      'oauth-authorize',
      '--workspace',
      business,
      '--client-id',
      clientId,
      '--scope',
      'read',
      '--redirect-uri',
      redirectUri,
      '--code-challenge',
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(/enterprise plan only; workspace ws_\w+ is on the business plan/);
  });

  it('when an operator registers a confidential client and a test consent, then the secret is printed once and the token is test', async () => {
    const registered = await admin('oauth-client', '--name', 'Partner server', '--redirect-uri', redirectUri, '--confidential', '--json');
    expect(registered.code, registered.stderr).toBe(0);
    const client = JSON.parse(registered.stdout) as { client_id: string; client_secret: string };
    expect(client.client_secret).toMatch(/^svc_ocs_[0-9A-Za-z]{40}$/);
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorized = await admin(
      'oauth-authorize',
      '--workspace',
      enterprise,
      '--client-id',
      client.client_id,
      '--scope',
      'read',
      '--redirect-uri',
      redirectUri,
      `--code-challenge=${challenge}`,
      '--environment',
      'test',
      '--json',
    );
    expect(authorized.code, authorized.stderr).toBe(0);
    const authorization = JSON.parse(authorized.stdout) as { code: string; environment: string };
    expect(authorization.environment).toBe('test');

    const api = await createTestApi({ store: await database.open() });
    try {
      const tokens = await api
        .call('post', '/v1/oauth/token', null)
        .type('form')
        .set('Authorization', `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`)
        .send(
          new URLSearchParams({
            grant_type: 'authorization_code',
            code: authorization.code,
            redirect_uri: redirectUri,
            client_id: client.client_id,
            code_verifier: verifier,
          }).toString(),
        );
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      const me = await api.call('get', '/v1/me', tokens.body.access_token);
      expect(me.body).toMatchObject({ auth_type: 'oauth_token', name: 'Partner server', environment: 'test' });
    } finally {
      await api.close();
    }
  });

  it('when a required option is missing, then the usage is printed with exit code 2', async () => {
    const refused = await admin('oauth-client', '--name', 'No redirect');
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/--redirect-uri/);
  });
});
