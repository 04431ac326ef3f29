/**
 * Sessions of people signed in to the service's pages (sign-in, consent, account; never `/v1`, which reads bearer
 * tokens only). The cookie carries a one-time token; the store keeps its hash. A session ends after 12 hours unused or
 * 7 days after its sign-in, whichever comes first, and at sign-out, when its passkey is removed, or when its person is
 * removed from a workspace.
 */
import { newId } from '../../ids.js';
import type { Account, Session } from '../../store/people-store.js';
import type { Services } from '../services.js';
import { after, hashToken, isOneTimeToken, lifetimes, newOneTimeToken } from './tokens.js';

/** `__Host-`: set only over HTTPS, for this host and path `/`, never by a subdomain. */
export const sessionCookieName = '__Host-ff_session';

export interface StartedSession {
  token: string;
  session: Session;
}

/**
 * Starts a new session for the account, ending the one the browser had (`previousToken`): every sign-in gets a fresh
 * token, so one planted in a browser before its owner signed in is worth nothing after.
 */
export async function startSession(
  services: Services,
  account: Account,
  passkeyId: string | null,
  previousToken?: unknown,
): Promise<StartedSession> {
  const now = services.now();
  if (isOneTimeToken(previousToken)) {
    const previous = await services.store.people.findSession(hashToken(previousToken));
    if (previous) await services.store.people.endSession(previous.session.id, now.toISOString());
  }
  const token = newOneTimeToken();
  const session: Session = {
    id: newId('ses'),
    hash: hashToken(token),
    accountId: account.id,
    passkeyId,
    createdAt: now.toISOString(),
    lastSeenAt: now.toISOString(),
    expiresAt: after(now, lifetimes.sessionAbsoluteMs),
    endedAt: null,
  };
  await services.store.people.createSession(session);
  return { token, session };
}

/** The session the cookie names, while it lasts; its use is recorded (at most once a minute). */
export async function currentSession(services: Services, token: unknown): Promise<{ session: Session; account: Account } | undefined> {
  if (!isOneTimeToken(token)) return undefined;
  const found = await services.store.people.findSession(hashToken(token));
  if (!found || found.session.endedAt !== null) return undefined;
  const now = services.now();
  const at = now.toISOString();
  if (found.session.expiresAt <= at || after(new Date(found.session.lastSeenAt), lifetimes.sessionIdleMs) <= at) return undefined;
  if (now.getTime() - Date.parse(found.session.lastSeenAt) >= lifetimes.sessionTouchMs) {
    await services.store.people.touchSession(found.session.id, at);
  }
  return found;
}

/** How long the cookie is kept: the session's absolute end (the idle end is the server's to judge). */
export const cookieMaxAgeSeconds = (services: Services, session: Session): number =>
  Math.max(0, Math.floor((Date.parse(session.expiresAt) - services.now().getTime()) / 1000));

export async function endSession(services: Services, token: unknown): Promise<void> {
  if (!isOneTimeToken(token)) return;
  const found = await services.store.people.findSession(hashToken(token));
  if (found) await services.store.people.endSession(found.session.id, services.now().toISOString());
}

/**
 * Whether the person with this email is signed in to the service somewhere (a session not ended, before its end, used
 * within its idle lifetime), and if so keeps that session alive: the dashboard's grant works only while its member
 * is signed in (oauth/first-party.ts), and using the dashboard is using the session.
 */
export async function keepLiveSession(services: Services, email: string): Promise<boolean> {
  const account = await services.store.people.findAccountByEmail(email);
  if (!account) return false;
  const now = services.now();
  const live = await services.store.people.liveSessionOf(account.id, now.toISOString(), after(now, -lifetimes.sessionIdleMs));
  if (!live) return false;
  if (now.getTime() - Date.parse(live.lastSeenAt) >= lifetimes.sessionTouchMs) {
    await services.store.people.touchSession(live.id, now.toISOString());
  }
  return true;
}
