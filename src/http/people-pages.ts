/**
 * People's pages, outside `/v1`: sign-in (passkey, or a link by email), one-time links, invitations, the account
 * (passkeys, sign-out) and the OAuth consent page at the contract's authorization URL. HTML for a person's browser,
 * never problem+json; refusals are pages too.
 *
 * - The session is a `__Host-` cookie (src/domain/people/sessions.ts) that only these pages read: `/v1` authenticates
 *   bearer tokens and never looks at a cookie, so a page a member visits cannot make API calls in their name.
 * - Every state-changing request must come from this service's own pages: its `Origin` must be the service's origin
 *   (a browser always sends it on a POST), or it is refused before anything is read; SameSite=Lax keeps the cookie off
 *   other sites' POSTs as well.
 * - Every page and call is counted against the client's address (`PUBLIC_RATE_LIMIT_PER_ADDRESS_PER_MINUTE`), before
 *   any work: sign-in links and passkey ceremonies cannot be tried in bulk.
 */
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import express from 'express';
import type { Logger } from 'pino';
import { isEmail } from '../domain/email.js';
import { isAppError } from '../domain/errors.js';
import { isFirstPartyClient } from '../domain/oauth/first-party.js';
import { membershipsOf } from '../domain/people/accounts.js';
import { recordSignIn } from '../domain/people/audit.js';
import { approveConsent, checkAuthorizationRequest, consentChoices, denyConsent, grantableScopes } from '../domain/people/consent.js';
import { acceptInvitation, invitationPath, openInvitation } from '../domain/people/invitations.js';
import { emailSignInLink, openSignInLink, signInLinkPath, spendSignInLink } from '../domain/people/links.js';
import { localPath } from '../domain/people/local-path.js';
import {
  listPasskeys,
  registerPasskey,
  registrationOptions,
  removePasskey,
  type Site,
  signInOptions,
  signInWithPasskey,
} from '../domain/people/passkeys.js';
import { isPageRefusal, PageRefusal } from '../domain/people/refusal.js';
import {
  cookieMaxAgeSeconds,
  currentSession,
  endSession,
  type StartedSession,
  sessionCookieName,
  startSession,
} from '../domain/people/sessions.js';
import { inviteFromAccount } from '../domain/people/team.js';
import type { Services } from '../domain/services.js';
import { StoreUnavailable } from '../store/errors.js';
import type { Account } from '../store/people-store.js';
import { STORE_RETRY_AFTER_SECONDS } from './error-handler.js';
import type { HostedAssets } from './hosted-assets.js';
import { stateOf } from './locals.js';
import {
  accountPage,
  consentPage,
  emailSentPage,
  errorPage,
  invitePage,
  linkPage,
  type PageAssets,
  peopleAssets,
  peoplePagePolicy,
  peoplePolicy,
  signInPage,
} from './people-views.js';

/** What scopes mean, in words a person reads on the consent page (the contract's own descriptions). */
export type ScopeWords = Readonly<Record<string, string>>;

export interface PeoplePagesOptions {
  services: Services;
  assetsOf: () => HostedAssets | undefined;
  limitAddress: RequestHandler;
  log: Logger;
  /** The consent page's path: the pathname of the contract's `authorizationUrl`. */
  consentPath: string;
  scopeWords: ScopeWords;
}

const pageHeaders = {
  'Content-Security-Policy': peoplePagePolicy,
  'Cache-Control': 'no-store',
  // Not `no-referrer`: under it a browser sends `Origin: null` with a form's POST, and the origin check needs the
  // origin. `same-origin` still sends nothing to another site (a link's token stays here).
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

/** The value of one cookie of the request, if present (a cookie-parsing library for one name would be more code). */
function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/**
 * The origin people reach the service at, and so the WebAuthn relying party: `PUBLIC_BASE_URL`'s where one is set,
 * otherwise the host this request was sent to (the local server, https://localhost:PORT).
 */
function siteOf(services: Services, req: Request): Site {
  const origin = services.publicBaseUrl ? new URL(services.publicBaseUrl).origin : `https://${req.headers.host ?? 'localhost'}`;
  return { origin, rpId: new URL(origin).hostname };
}

/** A navigation started on this service's pages or by the person (`Sec-Fetch-Site`; browsers without it count as so). */
const fromThisServiceOrTyped = (req: Request): boolean => {
  const site = req.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
};

const formField = (req: Request, name: string): unknown => (req.body as Record<string, unknown> | undefined)?.[name];

export function peoplePages(options: PeoplePagesOptions): Router {
  const { services, assetsOf, limitAddress, log, consentPath } = options;
  const router = express.Router({ caseSensitive: true });
  const forms = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  const json = express.json({ limit: '64kb' });

  const assets = (): PageAssets => {
    const built = assetsOf();
    if (!built) throw new PageRefusal(404, 'Not built', 'The pages are not built: run npm run build.');
    return peopleAssets(built.manifest);
  };
  const send = (res: Response, html: string, status = 200) => void res.status(status).set(pageHeaders).type('html').send(html);
  /** The consent page: its Approve and Deny redirect to the application, which its policy must allow. */
  const sendConsent = (res: Response, html: string, redirectUri: string) =>
    void res
      .status(200)
      .set({ ...pageHeaders, 'Content-Security-Policy': peoplePolicy(new URL(redirectUri).origin) })
      .type('html')
      .send(html);

  /** Refuses a state-changing request that did not come from this service's own pages. */
  const sameOrigin: RequestHandler = (req, _res, next) => {
    if (req.headers.origin !== siteOf(services, req).origin) {
      throw new PageRefusal(403, 'Request refused', 'This form was sent from another site, so nothing was done.');
    }
    next();
  };

  const session = (req: Request) => currentSession(services, cookieValue(req, sessionCookieName));

  function setSession(res: Response, started: StartedSession): void {
    res.cookie(sessionCookieName, started.token, {
      httpOnly: true,
      secure: true,
      sameSite: 'lax',
      path: '/',
      maxAge: cookieMaxAgeSeconds(services, started.session) * 1000,
    });
  }
  const clearSession = (res: Response) =>
    void res.clearCookie(sessionCookieName, { httpOnly: true, secure: true, sameSite: 'lax', path: '/' });

  async function signIn(req: Request, res: Response, account: Account, passkeyId: string | null): Promise<void> {
    const started = await startSession(services, account, passkeyId, cookieValue(req, sessionCookieName));
    setSession(res, started);
    const memberships = await membershipsOf(services, account);
    await recordSignIn(services, account.email, memberships, started.session.createdAt, passkeyId ? 'passkey' : 'link');
  }

  /** The signed-in person, or a redirect to the sign-in page that comes back here. */
  async function signedIn(req: Request, res: Response): Promise<Account | undefined> {
    const found = await session(req);
    if (found) return found.account;
    res.redirect(303, `/sign-in?next=${encodeURIComponent(req.originalUrl)}`);
    return undefined;
  }

  const page =
    (handle: (req: Request, res: Response) => Promise<void>): RequestHandler =>
    (req, res, next) =>
      handle(req, res).catch(next);

  router.use(['/sign-in', '/sign-out', '/account', '/invites', consentPath], limitAddress);

  router.get(
    '/sign-in',
    page(async (req, res) => {
      const next = localPath(req.query.next);
      if (await session(req)) return void res.redirect(303, next ?? '/account');
      send(res, signInPage(assets(), { next }));
    }),
  );

  router.post(
    '/sign-in/email',
    sameOrigin,
    forms,
    page(async (req, res) => {
      const email = formField(req, 'email');
      const next = localPath(formField(req, 'next'));
      if (typeof email !== 'string' || !/^[^\s@]{1,64}@[^\s@]{1,253}$/.test(email.trim())) {
        return send(res, signInPage(assets(), { next, error: 'Enter the email address you were invited with.' }), 400);
      }
      await emailSignInLink(services, email, next);
      send(res, emailSentPage(assets(), { email: email.trim() }));
    }),
  );

  router.post(
    '/sign-in/passkey/options',
    sameOrigin,
    json,
    page(async (req, res) => {
      res.set(pageHeaders).json({ options: await signInOptions(services, siteOf(services, req)) });
    }),
  );

  router.post(
    '/sign-in/passkey',
    sameOrigin,
    json,
    page(async (req, res) => {
      const body = (req.body ?? {}) as { response?: unknown; next?: unknown };
      const { account, passkey } = await signInWithPasskey(services, siteOf(services, req), body.response as never);
      await signIn(req, res, account, passkey.id);
      res.set(pageHeaders).json({ redirect: localPath(body.next) ?? '/account' });
    }),
  );

  router.get(
    signInLinkPath,
    page(async (req, res) => {
      const { email } = await openSignInLink(services, req.query.token);
      send(res, linkPage(assets(), { token: req.query.token as string, email, next: localPath(req.query.next) }));
    }),
  );

  router.post(
    signInLinkPath,
    sameOrigin,
    forms,
    page(async (req, res) => {
      const account = await spendSignInLink(services, formField(req, 'token'));
      await signIn(req, res, account, null);
      res.redirect(303, localPath(formField(req, 'next')) ?? '/account');
    }),
  );

  router.get(
    invitationPath,
    page(async (req, res) => {
      const invitation = await openInvitation(services, req.query.token);
      const current = await session(req);
      send(
        res,
        invitePage(assets(), {
          token: req.query.token as string,
          workspaceName: invitation.workspace.name,
          role: invitation.role,
          email: invitation.email,
          signedInAs: current?.account.email,
        }),
      );
    }),
  );

  router.post(
    invitationPath,
    sameOrigin,
    forms,
    page(async (req, res) => {
      const current = await session(req);
      const { account, newcomer } = await acceptInvitation(services, formField(req, 'token'), current?.account);
      if (current) return void res.redirect(303, '/account');
      // A newcomer has no passkey yet: the link, which proved the address, signs them in, and the account page asks
      // for a passkey next. Someone who already has an account signs in as always: an invitation, which lives 7 days
      // and is the kind of mail people forward, must not open an existing account's other workspaces.
      if (!newcomer) return void res.redirect(303, '/sign-in?next=%2Faccount');
      await signIn(req, res, account, null);
      res.redirect(303, '/account');
    }),
  );

  router.get(
    '/account',
    page(async (req, res) => {
      const account = await signedIn(req, res);
      if (!account) return;
      const [memberships, passkeys] = await Promise.all([membershipsOf(services, account), listPasskeys(services, account)]);
      // Only an address is shown back: the page must not say what a crafted link puts in its query.
      const invited = typeof req.query.invited === 'string' && isEmail(req.query.invited) ? req.query.invited : undefined;
      send(
        res,
        accountPage(assets(), {
          notice: invited ? `Invited ${invited}: the invitation is on its way by email.` : undefined,
          account: { email: account.email, name: account.name },
          memberships: memberships.map(({ workspaceId, workspaceName, role, plan }) => ({ workspaceId, workspaceName, role, plan })),
          passkeys: passkeys.map(({ id, name, createdAt, lastUsedAt }) => ({ id, name, createdAt, lastUsedAt })),
        }),
      );
    }),
  );

  /** The JSON calls of the account page's script: a session is required, and its absence is a 403 the script shows. */
  async function sessionAccount(req: Request): Promise<Account> {
    const found = await session(req);
    if (!found) throw new PageRefusal(403, 'Signed out', 'Your session has ended. Sign in again.');
    return found.account;
  }

  router.post(
    '/account/passkeys/options',
    sameOrigin,
    json,
    page(async (req, res) => {
      const account = await sessionAccount(req);
      res.set(pageHeaders).json({ options: await registrationOptions(services, siteOf(services, req), account) });
    }),
  );

  router.post(
    '/account/passkeys',
    sameOrigin,
    json,
    page(async (req, res) => {
      const account = await sessionAccount(req);
      const body = (req.body ?? {}) as { response?: unknown; name?: unknown };
      const name = typeof body.name === 'string' ? body.name : undefined;
      await registerPasskey(services, siteOf(services, req), account, body.response as never, name);
      res.set(pageHeaders).json({ redirect: '/account' });
    }),
  );

  router.post(
    '/account/passkeys/:id/remove',
    sameOrigin,
    forms,
    page(async (req, res) => {
      const account = await sessionAccount(req);
      await removePasskey(services, account, String(req.params.id));
      res.redirect(303, '/account');
    }),
  );

  router.post(
    '/account/invites',
    sameOrigin,
    forms,
    page(async (req, res) => {
      const account = await sessionAccount(req);
      const invite = await inviteFromAccount(services, account, {
        workspace: formField(req, 'workspace'),
        email: formField(req, 'email'),
        role: formField(req, 'role'),
      });
      res.redirect(303, `/account?invited=${encodeURIComponent(invite.email)}`);
    }),
  );

  router.post(
    '/sign-out',
    sameOrigin,
    forms,
    page(async (req, res) => {
      await endSession(services, cookieValue(req, sessionCookieName));
      clearSession(res);
      // The invitation page signs out someone signed in as another address and comes back to the invitation.
      res.redirect(303, localPath(formField(req, 'next')) ?? '/sign-in');
    }),
  );

  async function consent(req: Request, res: Response, query: Record<string, unknown>, chosen: unknown): Promise<void> {
    const { origin } = siteOf(services, req);
    const checked = await checkAuthorizationRequest(services, query, origin);
    if (!checked.ok) return void res.redirect(303, checked.redirect);
    const account = await signedIn(req, res);
    if (!account) return;
    // The service's own dashboard: the member signed in here to use it, so consent is implied (first-party.ts), for a
    // navigation from this service or typed in. Another site's link (the Lax cookie goes along) gets the consent page.
    if (isFirstPartyClient(checked.request.clientId) && fromThisServiceOrTyped(req)) {
      return void res.redirect(303, await approveConsent(services, account, checked.request, chosen, origin));
    }
    const { workspaces } = await consentChoices(services, account, checked.request.clientId);
    if (workspaces.length === 0) {
      throw new PageRefusal(
        403,
        'No workspace can connect this application',
        'Applications connect to workspaces on the Enterprise plan, and you are not a member of one.',
      );
    }
    const selected = workspaces.find((workspace) => workspace.workspaceId === chosen) ?? workspaces[0]!;
    const { granted, withheld } = grantableScopes(selected.role, checked.request.scopes);
    const words = (scope: string) => ({ scope, words: options.scopeWords[scope] ?? scope });
    sendConsent(
      res,
      consentPage(assets(), {
        action: consentPath,
        clientName: checked.request.clientName,
        redirectHost: new URL(checked.request.redirectUri).host,
        workspaces: workspaces.map((workspace) => ({
          id: workspace.workspaceId,
          name: workspace.workspaceName,
          role: workspace.role,
          plan: workspace.plan,
        })),
        selectedWorkspaceId: selected.workspaceId,
        environment: checked.request.environment,
        scopes: granted.map(words),
        deniedScopes: withheld.map(words),
        hidden: checked.request.parameters,
        account: { email: account.email, name: account.name },
      }),
      checked.request.redirectUri,
    );
  }

  router.get(
    consentPath,
    page((req, res) => consent(req, res, req.query as Record<string, unknown>, req.query.workspace)),
  );

  router.post(
    consentPath,
    sameOrigin,
    forms,
    page(async (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const { origin } = siteOf(services, req);
      const checked = await checkAuthorizationRequest(services, body, origin);
      if (!checked.ok) return void res.redirect(303, checked.redirect);
      const found = await session(req);
      if (!found) throw new PageRefusal(403, 'Signed out', 'Your session ended before you answered. Open the application’s link again.');
      const redirect =
        body.decision === 'approve'
          ? await approveConsent(services, found.account, checked.request, body.workspace, origin)
          : denyConsent(checked.request);
      res.redirect(303, redirect);
    }),
  );

  router.use(refusals(log, assetsOf, send));
  return router;
}

/** Every refusal as a page (or, for the scripts' JSON calls, `{ message }`); nothing internal is shown. */
function refusals(log: Logger, assetsOf: () => HostedAssets | undefined, send: (res: Response, html: string, status: number) => void) {
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    let status = 500;
    let title = 'Something went wrong';
    let message = 'Try again in a moment.';
    if (isPageRefusal(error)) {
      ({ status, title, message } = error);
    } else if (isAppError(error)) {
      status = error.status;
      message = error.message;
      title = status === 429 ? 'Too many requests' : 'Request refused';
      const retryAfter = error.details?.retry_after_seconds;
      if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    } else if (error instanceof StoreUnavailable) {
      status = 503;
      title = 'Briefly unavailable';
      message = 'The service cannot reach its database just now. Try again in a moment.';
      res.setHeader('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
    } else if ((error as { type?: string }).type === 'entity.parse.failed' || (error as { status?: number }).status === 413) {
      status = (error as { status?: number }).status === 413 ? 413 : 400;
      title = 'Request refused';
      message = 'The request could not be read.';
    } else {
      log.error({ request_id: stateOf(res).requestId, err: error }, 'unhandled error on a page');
    }
    if (req.is('application/json') || req.path.endsWith('/options') || req.path.endsWith('/passkey') || req.path.endsWith('/passkeys')) {
      return void res.status(status).set(pageHeaders).json({ message });
    }
    const built = assetsOf();
    send(res, errorPage(built && peopleAssets(built.manifest), { status, title, message }), status);
  };
}
