/**
 * A sample partner application, the one the "Connect with OAuth" guide walks through: a page on the loopback
 * interface with a "Connect Form-Funnel" link. It finds the service's endpoints in its authorization server metadata
 * (RFC 8414), sends the person to the consent page with PKCE (S256) and a `state`, takes the code at its redirect URI,
 * exchanges it for tokens and shows `GET /v1/me`: the workspace, the scope and the member who approved.
 *
 *   npm run admin -- oauth-client --name "Sample app" --redirect-uri http://127.0.0.1:8600/callback
 *   FORM_FUNNEL_URL=https://localhost:8443 CLIENT_ID=client_… NODE_EXTRA_CA_CERTS=data/tls-cert.pem npm run oauth-sample
 *
 * A public client (no secret): a browser or native app could hold none, and PKCE proves the code's holder.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export type Fetch = (request: Request) => Promise<Response>;

export interface SampleAppOptions {
  /** Where the service is, e.g. https://localhost:8443. */
  serviceUrl: string;
  clientId: string;
  /** What to ask for: space-separated scopes. */
  scope?: string;
  /** The loopback port (0: any free one); the redirect URI is http://127.0.0.1:PORT/callback. */
  port?: number;
  /** How to reach the service (a test passes one that trusts its certificate). */
  fetch?: Fetch;
}

export interface SampleApp {
  url: string;
  redirectUri: string;
  close(): Promise<void>;
}

interface Metadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

const html = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;

export async function startSampleApp(options: SampleAppOptions): Promise<SampleApp> {
  const fetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const scope = options.scope ?? 'read';
  // One authorization at a time per `state`: its PKCE verifier waits here for the code to come back.
  const pending = new Map<string, string>();
  let redirectUri = '';

  const metadata = async (): Promise<Metadata> => {
    const response = await fetch(new Request(new URL('/.well-known/oauth-authorization-server', options.serviceUrl)));
    if (!response.ok) throw new Error(`The service's metadata answered ${response.status}`);
    return (await response.json()) as Metadata;
  };

  async function start(res: http.ServerResponse): Promise<void> {
    const { authorization_endpoint } = await metadata();
    const state = randomBytes(16).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    pending.set(state, verifier);
    const url = new URL(authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: options.clientId,
      redirect_uri: redirectUri,
      scope,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html('Sample app', `<p><a href="${escapeHtml(url.toString())}">Connect Form-Funnel</a></p>`));
  }

  async function callback(query: URLSearchParams, res: http.ServerResponse): Promise<void> {
    const state = query.get('state') ?? '';
    const verifier = pending.get(state);
    pending.delete(state);
    const show = (status: number, title: string, body: string) => {
      res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(html(title, body));
    };
    // A callback this app did not start (no such state) is someone else's: never exchange its code.
    if (verifier === undefined) return show(400, 'Unknown state', '<p>This app did not start that authorization.</p>');
    const error = query.get('error');
    if (error) return show(200, 'Not connected', `<p id="error">${escapeHtml(error)}</p>`);
    const { token_endpoint } = await metadata();
    const tokenResponse = await fetch(
      new Request(token_endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: query.get('code') ?? '',
          redirect_uri: redirectUri,
          client_id: options.clientId,
          code_verifier: verifier,
        }).toString(),
      }),
    );
    const tokens = (await tokenResponse.json()) as { access_token?: string; scope?: string; error?: string };
    if (!tokens.access_token) return show(502, 'Not connected', `<p id="error">${escapeHtml(tokens.error ?? 'no token')}</p>`);
    const me = (await (
      await fetch(new Request(new URL('/v1/me', options.serviceUrl), { headers: { Authorization: `Bearer ${tokens.access_token}` } }))
    ).json()) as { workspace: { name: string }; scope: string; member: { email: string; name: string | null } | null };
    show(
      200,
      'Connected',
      `<dl><dt>Workspace</dt><dd id="workspace">${escapeHtml(me.workspace.name)}</dd>` +
        `<dt>Scope</dt><dd id="scope">${escapeHtml(me.scope)}</dd>` +
        `<dt>Approved by</dt><dd id="member">${escapeHtml(me.member?.email ?? '')}</dd></dl>`,
    );
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const handled = url.pathname === '/callback' ? callback(url.searchParams, res) : start(res);
    handled.catch((error: unknown) => {
      res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`The service could not be reached: ${(error as Error).message}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  redirectUri = `http://127.0.0.1:${port}/callback`;
  return {
    url: `http://127.0.0.1:${port}/`,
    redirectUri,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const serviceUrl = process.env.FORM_FUNNEL_URL ?? 'https://localhost:8443';
  const clientId = process.env.CLIENT_ID;
  if (!clientId) {
    process.stderr.write('Set CLIENT_ID to the client_id that `npm run admin -- oauth-client` printed.\n');
    process.exit(2);
  }
  const app = await startSampleApp({ serviceUrl, clientId, scope: process.env.SCOPE, port: Number(process.env.PORT ?? 8600) });
  process.stdout.write(`Sample app on ${app.url} (redirect URI ${app.redirectUri}); open it in a browser.\n`);
}
