/**
 * Passkeys (WebAuthn), with @simplewebauthn/server: a signed-in person registers one (or several), and signs in with
 * any of them afterwards, without a password or a username (discoverable credentials). Each ceremony's challenge is
 * a one-time token like a link's (5 minutes, single use, stored as a hash), so no ceremony needs server memory
 * between its two requests, and an answer can be replayed never.
 *
 * The relying party is the host people reach the service at (`PUBLIC_BASE_URL`'s, or the host the page was asked
 * on where none is set); WebAuthn refuses an IP address, so a local server is opened as https://localhost:PORT.
 */
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { newId } from '../../ids.js';
import type { Account, Passkey } from '../../store/people-store.js';
import type { Services } from '../services.js';
import { PageRefusal } from './refusal.js';
import { after, hashToken, lifetimes, newOneTimeToken } from './tokens.js';

/** Where the ceremony happens: the page's origin (`https://host[:port]`) and the relying party's id (its host). */
export interface Site {
  origin: string;
  rpId: string;
}

const rpName = 'Form-Funnel';
const timeoutMs = lifetimes.challengeMs;

const refused = (message: string) => new PageRefusal(400, 'The passkey was not accepted', message);

/**
 * What the browser sent, before the library reads it: an object with the credential's id and its response, as the
 * script's `startRegistration` / `startAuthentication` give them. Anything else is refused in words a person can
 * read, never with the library's own failure on a missing property.
 */
function assertCredential(response: unknown): asserts response is { id: string; response: object } {
  const candidate = response as { id?: unknown; rawId?: unknown; type?: unknown; response?: unknown } | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.id !== 'string' ||
    typeof candidate.rawId !== 'string' ||
    candidate.type !== 'public-key' ||
    typeof candidate.response !== 'object' ||
    candidate.response === null
  ) {
    throw refused('The browser sent no passkey answer. Try again.');
  }
}

/** The library's reason for a refusal when it is one of its checks; a generic one for anything else. */
const reasonOf = (error: unknown): string =>
  error instanceof Error && error.name !== 'TypeError' ? error.message : 'The passkey could not be checked.';

/** A challenge for one ceremony: stored as a one-time token, for `email` (registration) or anyone (sign-in, ''). */
async function newChallenge(services: Services, email: string): Promise<string> {
  const now = services.now();
  const token = newOneTimeToken();
  await services.store.people.createLink({
    hash: hashToken(token),
    purpose: 'challenge',
    email,
    workspaceId: null,
    inviteId: null,
    expiresAt: after(now, lifetimes.challengeMs),
    createdAt: now.toISOString(),
    usedAt: null,
  });
  return token;
}

/** Spends the challenge the browser signed, if it is one this service issued for `email` and it is unspent. */
const spendChallenge = (services: Services, email: string) => async (challenge: string) => {
  const hash = hashToken(challenge);
  const link = await services.store.people.findLink(hash);
  if (link?.purpose !== 'challenge' || link.email !== email) return false;
  return (await services.store.people.spendLink(hash, services.now().toISOString())) !== undefined;
};

export async function registrationOptions(
  services: Services,
  site: Site,
  account: Account,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await services.store.people.listPasskeys(account.id);
  const challenge = await newChallenge(services, account.email);
  return generateRegistrationOptions({
    rpName,
    rpID: site.rpId,
    userID: new TextEncoder().encode(account.id),
    userName: account.email,
    userDisplayName: account.name ?? account.email,
    challenge: Buffer.from(challenge, 'base64url'),
    timeout: timeoutMs,
    attestationType: 'none',
    excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports as never })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
}

const maxNameLength = 100;

export async function registerPasskey(
  services: Services,
  site: Site,
  account: Account,
  response: RegistrationResponseJSON,
  name?: string,
): Promise<Passkey> {
  assertCredential(response);
  let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verification = await verifyRegistrationResponse({
      response,
      expectedChallenge: spendChallenge(services, account.email),
      expectedOrigin: site.origin,
      expectedRPID: site.rpId,
      requireUserVerification: true,
    });
  } catch (error) {
    throw refused(reasonOf(error));
  }
  if (!verification.verified || !verification.registrationInfo) throw refused('The passkey could not be verified.');
  const { credential } = verification.registrationInfo;
  const now = services.now();
  const passkey: Passkey = {
    id: newId('psk'),
    accountId: account.id,
    credentialId: credential.id,
    publicKey: Buffer.from(credential.publicKey),
    counter: credential.counter,
    transports: credential.transports ?? [],
    name: name?.trim().slice(0, maxNameLength) || `Passkey added ${now.toISOString().slice(0, 10)}`,
    createdAt: now.toISOString(),
    lastUsedAt: null,
  };
  await services.store.people.addPasskey(passkey);
  return passkey;
}

export async function signInOptions(services: Services, site: Site): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const challenge = await newChallenge(services, '');
  return generateAuthenticationOptions({
    rpID: site.rpId,
    challenge: Buffer.from(challenge, 'base64url'),
    timeout: timeoutMs,
    userVerification: 'required',
  });
}

export async function signInWithPasskey(
  services: Services,
  site: Site,
  response: AuthenticationResponseJSON,
): Promise<{ account: Account; passkey: Passkey }> {
  assertCredential(response);
  const passkey = await services.store.people.findPasskey(response.id);
  if (!passkey) throw refused('This passkey is not registered here. Sign in with another, or ask for a sign-in link.');
  const account = await services.store.people.getAccount(passkey.accountId);
  if (!account) throw refused('This passkey is not registered here.');
  let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: spendChallenge(services, ''),
      expectedOrigin: site.origin,
      expectedRPID: site.rpId,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: passkey.counter,
        transports: passkey.transports as never,
      },
      requireUserVerification: true,
    });
  } catch (error) {
    throw refused(reasonOf(error));
  }
  if (!verification.verified) throw refused('The passkey could not be verified.');
  await services.store.people.recordPasskeyUse(passkey.id, verification.authenticationInfo.newCounter, services.now().toISOString());
  return { account, passkey };
}

export const listPasskeys = (services: Services, account: Account): Promise<Passkey[]> => services.store.people.listPasskeys(account.id);

/** Removes one of the person's passkeys, ending the sessions it began. */
export async function removePasskey(services: Services, account: Account, id: string): Promise<void> {
  const removed = await services.store.people.removePasskey(account.id, id, services.now().toISOString());
  if (!removed) throw new PageRefusal(404, 'No such passkey', 'This passkey is not one of yours, or it was already removed.');
}
