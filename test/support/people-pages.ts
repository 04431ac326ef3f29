/**
 * The people pages outside the app, for their views' tests: each page with stub data, and a tiny HTTPS server that
 * serves pages by path under the pages' real Content-Security-Policy, the built browser files (dist/hosted/, as the
 * `api` project's global setup builds them) at /f/assets/, and JSON endpoints a test supplies (the passkey
 * protocol's). Chromium opens it at https://localhost:<port> (`--host-resolver-rules`), since WebAuthn refuses an IP
 * address as the relying party (the shared Chromium of ./chromium.ts maps it).
 */
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostedAssetLoader } from '../../src/http/hosted-assets.js';
import {
  accountPage,
  type ConsentView,
  consentPage,
  emailSentPage,
  errorPage,
  invitePage,
  linkPage,
  type PageAssets,
  peopleAssets,
  peoplePagePolicy,
  signInPage,
} from '../../src/http/people-views.js';
import { testCertificate } from './harness.js';

export const stubConsent = (overrides: Partial<ConsentView> = {}): ConsentView => ({
  clientName: 'Acme "Sync" app',
  redirectHost: 'app.example',
  workspaces: [
    { id: 'ws_1', name: 'Acme', role: 'admin', plan: 'enterprise' },
    { id: 'ws_2', name: 'Beta Widgets International', role: 'viewer', plan: 'enterprise' },
  ],
  selectedWorkspaceId: 'ws_2',
  environment: 'live',
  scopes: [{ scope: 'read', words: 'Read forms, submissions and analytics' }],
  deniedScopes: [
    { scope: 'read_write', words: 'Create and change forms, submissions and integrations' },
    { scope: 'admin', words: 'Manage keys, the team and billing' },
  ],
  hidden: { client_id: 'oc_1', redirect_uri: 'https://app.example/cb', state: 'xyz', code_challenge: 'abc' },
  account: { email: 'ana@acme.test', name: 'Ana' },
  ...overrides,
});

/** Every page, with ordinary stub data (long names included, to test wrapping), keyed by a name for files and tests. */
export const stubPeoplePages = (assets: PageAssets): Record<string, string> => ({
  'sign-in': signInPage(assets, { next: '/oauth/authorize?client_id=oc_1', error: 'That sign-in link has expired. Ask for another.' }),
  'email-sent': emailSentPage(assets, { email: 'anastasia.konstantinopoulou@very-long-company-name.example' }),
  link: linkPage(assets, { token: 'tok', email: 'anastasia.konstantinopoulou@very-long-company-name.example', next: '/account' }),
  invite: invitePage(assets, { token: 'tok', workspaceName: 'Acme', role: 'viewer', email: 'ana@acme.test', inviter: 'Olga Owner' }),
  'invite-other-account': invitePage(assets, {
    token: 'tok',
    workspaceName: 'Acme',
    role: 'editor',
    email: 'ana@acme.test',
    signedInAs: 'bob@acme.test',
  }),
  account: accountPage(assets, {
    account: { email: 'ana@acme.test', name: 'Ana Lima' },
    memberships: [
      { workspaceName: 'Acme', role: 'admin', plan: 'business' },
      { workspaceName: 'Beta Widgets International', role: 'viewer', plan: 'enterprise' },
    ],
    passkeys: [
      { id: 'pk_1', name: 'Work laptop', createdAt: '2026-12-06T09:00:00Z', lastUsedAt: '2026-12-06T10:00:00Z' },
      { id: 'pk_2', name: 'Phone', createdAt: '2026-11-02T09:00:00Z', lastUsedAt: null },
    ],
    notice: 'Passkey added.',
  }),
  'account-admin': accountPage(assets, {
    account: { email: 'olga@acme.test', name: 'Olga Owner' },
    memberships: [
      { workspaceId: 'ws_1', workspaceName: 'Acme', role: 'admin', plan: 'business' },
      { workspaceId: 'ws_2', workspaceName: 'Beta Widgets International', role: 'admin', plan: 'enterprise' },
    ],
    passkeys: [{ id: 'pk_1', name: 'Work laptop', createdAt: '2026-12-06T09:00:00Z', lastUsedAt: null }],
  }),
  'account-no-passkey': accountPage(assets, {
    account: { email: 'ana@acme.test', name: null },
    memberships: [{ workspaceName: 'Acme', role: 'viewer', plan: 'pro' }],
    passkeys: [],
  }),
  consent: consentPage(assets, stubConsent()),
  'consent-test-one-workspace': consentPage(
    assets,
    stubConsent({ workspaces: [stubConsent().workspaces[0]!], selectedWorkspaceId: 'ws_1', environment: 'test', deniedScopes: [] }),
  ),
  error: errorPage(assets, {
    status: 429,
    title: 'Too many requests',
    message: 'Too many requests came from your network. Wait a minute.',
  }),
});

/** A JSON endpoint's answer. */
export interface JsonAnswer {
  status?: number;
  body: unknown;
}

export interface PeoplePagesServer {
  /** https://localhost:<port> */
  origin: string;
  /** Pages by path (query string ignored); a test may add more. */
  pages: Map<string, string>;
  /** JSON POST endpoints by path; each gets the parsed body and the request's headers. */
  json: Map<string, (body: unknown, headers: IncomingHttpHeaders) => JsonAnswer | Promise<JsonAnswer>>;
  assets: PageAssets;
  close(): Promise<void>;
}

export async function startPeoplePagesServer(): Promise<PeoplePagesServer> {
  const built = hostedAssetLoader()();
  if (!built) throw new Error('dist/hosted is not built: the api project builds it in its global setup (npm run build:page)');
  const assets = peopleAssets(built.manifest);
  const pages = new Map<string, string>();
  const json: PeoplePagesServer['json'] = new Map();
  const server = https.createServer(await testCertificate(), (req, res) => {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    const file = path.startsWith('/f/assets/') ? built.files.get(path.slice('/f/assets/'.length)) : undefined;
    if (req.method === 'GET' && file) {
      res.writeHead(200, { 'Content-Type': path.endsWith('.css') ? 'text/css' : 'text/javascript' }).end(file);
    } else if (req.method === 'GET' && pages.has(path)) {
      res
        .writeHead(200, {
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Security-Policy': peoplePagePolicy,
          'Set-Cookie': 'probe=1; Secure; HttpOnly; SameSite=Lax; Path=/',
        })
        .end(pages.get(path));
    } else if (req.method === 'POST' && json.has(path)) {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', async () => {
        const answer = await json.get(path)!(JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'), req.headers);
        res.writeHead(answer.status ?? 200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer.body));
      });
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `https://localhost:${(server.address() as AddressInfo).port}`,
    pages,
    json,
    assets,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
