/**
 * People as accounts: one per email, made the first time the person signs in by a link, accepts an invitation or is
 * bootstrapped as a workspace's first admin. A member invited or added before their account existed is theirs from
 * then on: memberships are the `members` rows with the account's email.
 */
import { newId } from '../../ids.js';
import type { Account, Membership } from '../../store/people-store.js';
import { type Services, timestamp } from '../services.js';

export const normalEmail = (email: string): string => email.trim().toLowerCase();

export function ensureAccount(services: Services, email: string, name: string | null = null): Promise<Account> {
  return services.store.people.ensureAccount({ id: newId('acct'), email: normalEmail(email), name, createdAt: timestamp(services) });
}

/**
 * The account of someone the service knows by this email: an account already made, or a member of some workspace
 * (who gets theirs now); undefined for anyone else.
 */
export async function knownPerson(services: Services, email: string): Promise<Account | undefined> {
  const normal = normalEmail(email);
  const account = await services.store.people.findAccountByEmail(normal);
  if (account) return account;
  const memberships = await services.store.people.memberships(normal);
  return memberships.length > 0 ? ensureAccount(services, normal) : undefined;
}

export const membershipsOf = (services: Services, account: Account): Promise<Membership[]> =>
  services.store.people.memberships(account.email);
