/**
 * Sign-in links: a one-time link (15 minutes, single use) that signs a person in, from the operator's CLI (the first
 * admin's, or a recovery) or by email from the sign-in page. Opening one shows a page; only its button spends it, so
 * a mail scanner that fetches every link in a message spends nothing.
 */
import { newId } from '../../ids.js';
import { signInMessage } from '../../mail/messages.js';
import type { Account, OneTimeLink, OutgoingMail } from '../../store/people-store.js';
import { publicBaseUrlOf, type Services } from '../services.js';
import { knownPerson } from './accounts.js';
import { localPath } from './local-path.js';
import { PageRefusal } from './refusal.js';
import { after, hashToken, isOneTimeToken, lifetimes, newOneTimeToken } from './tokens.js';

export interface IssuedLink {
  url: string;
  expiresAt: string;
}

export const signInLinkPath = '/sign-in/link';

/** Sign-in links one address is sent within a link's lifetime (15 minutes), however often the page is asked. */
export const maxEmailedLinks = 3;

function linkUrl(services: Services, path: string, token: string, next?: string): string {
  const url = new URL(path, `${publicBaseUrlOf(services)}/`);
  url.searchParams.set('token', token);
  if (next !== undefined) url.searchParams.set('next', next);
  return url.toString();
}

function newSignInLink(services: Services, account: Account): { token: string; link: OneTimeLink } {
  const now = services.now();
  const token = newOneTimeToken();
  const link: OneTimeLink = {
    hash: hashToken(token),
    purpose: 'sign_in',
    email: account.email,
    workspaceId: null,
    inviteId: null,
    expiresAt: after(now, lifetimes.signInLinkMs),
    createdAt: now.toISOString(),
    usedAt: null,
  };
  return { token, link };
}

/** A sign-in link for the operator to hand over (no email is sent). */
export async function signInLinkFor(services: Services, account: Account): Promise<IssuedLink> {
  const { token, link } = newSignInLink(services, account);
  await services.store.people.createLink(link);
  return { url: linkUrl(services, signInLinkPath, token), expiresAt: link.expiresAt };
}

export const outgoingMail = (services: Services, message: { to: string; subject: string; text: string; html: string }): OutgoingMail => {
  const now = services.now().toISOString();
  return { id: newId('mail'), ...message, createdAt: now, attempts: 0, nextAttemptAt: now, sentAt: null };
};

/**
 * Emails a sign-in link to a person the service knows (an account, or a member of some workspace); for anyone else it
 * does nothing, and the page says the same either way, so the form tells nobody who has an account.
 */
export async function emailSignInLink(services: Services, email: string, next?: string): Promise<void> {
  const account = await knownPerson(services, email);
  if (!account) return;
  // Anyone may ask, for any address: a few links per link lifetime are enough for a person, and the rest would only
  // fill their mailbox. The page answers the same either way.
  const since = new Date(services.now().getTime() - lifetimes.signInLinkMs).toISOString();
  if ((await services.store.people.recentLinks(account.email, 'sign_in', since)) >= maxEmailedLinks) return;
  const { token, link } = newSignInLink(services, account);
  const url = linkUrl(services, signInLinkPath, token, localPath(next));
  const message = signInMessage({ to: account.email, url, expiresInMinutes: lifetimes.signInLinkMs / 60_000 });
  await services.store.people.createLink(link, outgoingMail(services, message));
  services.nudgeMail?.();
}

const spentLink = () =>
  new PageRefusal(410, 'This link has expired', 'Sign-in links work once, for 15 minutes. Ask for a new one on the sign-in page.');

/** The link a page shows before its button spends it: who it signs in. */
export async function openSignInLink(services: Services, token: unknown): Promise<{ email: string }> {
  if (!isOneTimeToken(token)) throw spentLink();
  const link = await services.store.people.findLink(hashToken(token));
  if (link?.purpose !== 'sign_in' || link.usedAt !== null || link.expiresAt <= services.now().toISOString()) throw spentLink();
  return { email: link.email };
}

/** Spends a sign-in link; the account it signs in. */
export async function spendSignInLink(services: Services, token: unknown): Promise<Account> {
  if (!isOneTimeToken(token)) throw spentLink();
  const hash = hashToken(token);
  const known = await services.store.people.findLink(hash);
  // Only a sign-in link is spent here: an invitation's link is spent by accepting it, a challenge by its ceremony.
  if (known?.purpose !== 'sign_in') throw spentLink();
  const link = await services.store.people.spendLink(hash, services.now().toISOString());
  if (!link) throw spentLink();
  const account = await services.store.people.findAccountByEmail(link.email);
  if (!account) throw spentLink();
  return account;
}
