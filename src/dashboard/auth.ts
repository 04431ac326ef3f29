/**
 * Signing in to the dashboard: the OAuth 2.0 authorization-code flow with PKCE (RFC 7636), as any public client does
 * it. The consent page knows the dashboard and answers at once (consent is implied for the service's own client), so
 * for a signed-in member the round trip is two redirects; a member without a session signs in first and comes back.
 *
 * The access token lives in memory only. The refresh token is kept in this tab's sessionStorage, so that reloading
 * the page refreshes instead of authorizing again (every authorization is a new grant); it goes when the tab closes,
 * and signing out revokes the grant. The page's policy allows no script but its own, which is what protects both.
 */
import createClient from 'openapi-fetch';
import type { paths } from '../../generated/openapi.js';
import type { Schema } from '../client/schemas.js';
import type { DashboardConfig } from './config.js';

/** The environment a grant's tokens act in, as the contract names it. */
export type Environment = Schema<'Environment'>;

interface PendingAuthorization {
  state: string;
  verifier: string;
  environment: Environment;
  returnTo: string;
}

interface StoredRefresh {
  token: string;
  environment: Environment;
}

const pendingKey = 'form-funnel.dashboard.authorization';
const refreshKey = 'form-funnel.dashboard.refresh';
const attemptsKey = 'form-funnel.dashboard.attempts';
/** More authorizations than this in `attemptWindowMs` is a loop (a 401 that signing in again does not cure): stop. */
const maxAttempts = 3;
const attemptWindowMs = 60_000;
/** Refresh this long before the access token expires, so that no request is sent with one about to lapse. */
const refreshMarginMs = 60_000;

const base64url = (bytes: ArrayBuffer | Uint8Array): string =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

const randomToken = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)));

async function s256(verifier: string): Promise<string> {
  return base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
}

function readJson<T>(key: string): T | undefined {
  try {
    const raw = sessionStorage.getItem(key);
    return raw === null ? undefined : (JSON.parse(raw) as T);
  } catch {
    return undefined;
  }
}

/** The sign-in could not be completed: shown to the person with a way to start again. */
export class SignInFailed extends Error {}

export class DashboardSession {
  private accessToken: string | undefined;
  private expiresAt = 0;
  private refreshing: Promise<string> | undefined;
  /** The environment this session's tokens act in. */
  environment: Environment = 'live';
  private readonly oauth;

  constructor(private readonly config: DashboardConfig) {
    // The token endpoint takes no bearer token: a client of its own, typed from the same document.
    this.oauth = createClient<paths>({ baseUrl: config.api });
  }

  private get redirectUri(): string {
    return new URL('/dashboard/', location.origin).toString();
  }

  /**
   * Leaves for the consent page; the browser comes back to the dashboard with a code. The tab's current grant, if any,
   * is revoked first: one grant per tab. Refuses (SignInFailed) after a few tries within a minute, rather than loop.
   */
  async authorize(environment: Environment, returnTo: string, workspace?: string): Promise<never> {
    const now = Date.now();
    const recent = (readJson<number[]>(attemptsKey) ?? []).filter((at) => now - at < attemptWindowMs);
    if (recent.length >= maxAttempts) {
      sessionStorage.removeItem(attemptsKey);
      throw new SignInFailed('The dashboard could not sign in after several tries. Sign in again from your account page.');
    }
    sessionStorage.setItem(attemptsKey, JSON.stringify([...recent, now]));
    await this.signOut();
    const pending: PendingAuthorization = { state: randomToken(), verifier: randomToken(), environment, returnTo };
    sessionStorage.setItem(pendingKey, JSON.stringify(pending));
    const url = new URL(this.config.authorize, location.origin);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.config.clientId,
      redirect_uri: this.redirectUri,
      // The consent page grants what the member's role allows of these (admin, editor, viewer).
      scope: 'read read_write admin',
      state: pending.state,
      code_challenge: await s256(pending.verifier),
      code_challenge_method: 'S256',
      environment,
      ...(workspace ? { workspace } : {}),
    }).toString();
    location.assign(url.toString());
    return new Promise<never>(() => {});
  }

  /**
   * On load: completes an authorization the address bar brings back (`code` and `state`), or resumes with this tab's
   * refresh token. Returns where to go (the page the person was on), or undefined when neither is there.
   */
  async resume(): Promise<string | undefined> {
    const query = new URLSearchParams(location.search);
    const code = query.get('code');
    const error = query.get('error');
    if (code !== null || error !== null) {
      const pending = readJson<PendingAuthorization>(pendingKey);
      sessionStorage.removeItem(pendingKey);
      // The address bar must not keep the code (history, screenshots, a reload).
      history.replaceState(null, '', '/dashboard/');
      if (!pending || query.get('state') !== pending.state) {
        throw new SignInFailed('This sign-in was not started from this tab, so it was not completed.');
      }
      if (error !== null) throw new SignInFailed(query.get('error_description') ?? error);
      this.environment = pending.environment;
      await this.exchange({
        grant_type: 'authorization_code',
        code: code ?? '',
        redirect_uri: this.redirectUri,
        code_verifier: pending.verifier,
        client_id: this.config.clientId,
      });
      return pending.returnTo;
    }
    const stored = readJson<StoredRefresh>(refreshKey);
    if (!stored) return undefined;
    this.environment = stored.environment;
    try {
      await this.refresh(stored.token);
    } catch {
      sessionStorage.removeItem(refreshKey);
      return undefined;
    }
    return `${location.pathname}${location.search}`;
  }

  /**
   * The current access token, refreshed first when it is about to expire. What the API client sends. When the refresh
   * is refused (the member signed out everywhere, the grant was revoked), the tab authorizes again.
   */
  async token(): Promise<string> {
    if (this.accessToken !== undefined && Date.now() < this.expiresAt - refreshMarginMs) return this.accessToken;
    const stored = readJson<StoredRefresh>(refreshKey);
    this.refreshing ??= (stored ? this.refresh(stored.token) : Promise.reject(new SignInFailed('The dashboard is signed out.')))
      .catch((error: unknown) => {
        this.forget();
        return this.authorize(this.environment, `${location.pathname}${location.search}`).catch(() => {
          throw error;
        });
      })
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  /** Forgets the tokens: the next request needs a new authorization (after a 401: the grant was revoked). */
  forget(): void {
    this.accessToken = undefined;
    this.expiresAt = 0;
    sessionStorage.removeItem(refreshKey);
  }

  /** Revokes the grant (RFC 7009, with the refresh token), then forgets it. */
  async signOut(): Promise<void> {
    const stored = readJson<StoredRefresh>(refreshKey);
    this.forget();
    if (stored) {
      await this.oauth
        .POST('/oauth/revoke', {
          body: { token: stored.token, token_type_hint: 'refresh_token', client_id: this.config.clientId },
          bodySerializer: formEncoded,
          headers: formHeaders,
        })
        .catch(() => undefined);
    }
  }

  private async refresh(refreshToken: string): Promise<string> {
    return this.exchange({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: this.config.clientId });
  }

  private async exchange(body: TokenRequest): Promise<string> {
    const { data, error } = await this.oauth.POST('/oauth/token', { body, bodySerializer: formEncoded, headers: formHeaders });
    if (!data) {
      const message = (error as { message?: string } | undefined)?.message ?? 'The sign-in could not be completed.';
      throw new SignInFailed(message);
    }
    this.accessToken = data.access_token;
    this.expiresAt = Date.now() + data.expires_in * 1000;
    sessionStorage.removeItem(attemptsKey);
    const stored: StoredRefresh = { token: data.refresh_token, environment: this.environment };
    sessionStorage.setItem(refreshKey, JSON.stringify(stored));
    return data.access_token;
  }
}

type TokenRequest = NonNullable<paths['/oauth/token']['post']['requestBody']>['content']['application/x-www-form-urlencoded'];

const formHeaders = { 'Content-Type': 'application/x-www-form-urlencoded' };

/** The OAuth endpoints read forms (RFC 6749 section 3.2), not JSON. */
function formEncoded(body: unknown): URLSearchParams {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (value !== undefined) form.append(name, String(value));
  }
  return form;
}
