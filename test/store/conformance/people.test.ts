/**
 * One suite, every store: what the people store keeps. Accounts are people by email (made once, however many ask at
 * once); memberships are the `members` rows with that email; a one-time link is spent once, never after it expires;
 * an invitation is accepted atomically or not at all; a passkey's removal ends the sessions it began; a queued
 * message is claimed by one sender and emptied once sent; removing a member ends their grants and sessions; the purge
 * deletes links, sessions and sent mail that ended before its cutoffs, a batch at a time, and keeps the rest.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../../src/contract.js';
import { newId } from '../../../src/ids.js';
import { MAX_MAIL_ATTEMPTS, PARKED } from '../../../src/mail/sender.js';
import { RecordNotFound, StoreConflict } from '../../../src/store/errors.js';
import type { Account, OneTimeLink, OutgoingMail, Passkey, Session } from '../../../src/store/people-store.js';
import type { Store } from '../../../src/store/types.js';
import { createTestStore, storedRows, storeKinds } from '../../support/stores.js';
import { at, audit, workspace } from './fixtures.js';

const hashOf = (text: string): Buffer => createHash('sha256').update(text).digest();

const account = (email: string, name: string | null = null, createdAt = at(1)): Account => ({
  id: newId('acct'),
  email,
  name,
  createdAt,
});

const link = (text: string, fields: Partial<OneTimeLink> = {}): OneTimeLink => ({
  hash: hashOf(text),
  purpose: 'sign_in',
  email: 'ada@example.com',
  workspaceId: null,
  inviteId: null,
  expiresAt: at(900),
  createdAt: at(0),
  usedAt: null,
  ...fields,
});

const mail = (subject: string, fields: Partial<OutgoingMail> = {}): OutgoingMail => ({
  id: newId('mail'),
  to: 'ada@example.com',
  subject,
  text: `Open https://forms.example.com/sign-in/link?token=${subject}`,
  html: `<a href="https://forms.example.com/sign-in/link?token=${subject}">Sign in</a>`,
  createdAt: at(0),
  attempts: 0,
  nextAttemptAt: at(0),
  sentAt: null,
  ...fields,
});

const passkey = (accountId: string, credentialId: string, createdAt = at(2)): Passkey => ({
  id: newId('psk'),
  accountId,
  credentialId,
  publicKey: Buffer.from([0xa5, 0x01, 0x02, 0x00, 0xff]),
  counter: 0,
  transports: ['internal', 'hybrid'],
  name: 'Passkey added 6 Dec 2026',
  createdAt,
  lastUsedAt: null,
});

const session = (accountId: string, text: string, passkeyId: string | null = null): Session => ({
  id: newId('ses'),
  hash: hashOf(text),
  accountId,
  passkeyId,
  createdAt: at(10),
  lastSeenAt: at(10),
  expiresAt: at(10_000),
  endedAt: null,
});

const member = (email: string, role: Schema<'Member'>['role'] = 'viewer', created = at(5)): Schema<'Member'> => ({
  id: newId('mem'),
  object: 'member',
  email,
  name: null,
  role,
  created_at: created,
});

const invite = (email: string, expiresAt = at(7 * 86_400)): Schema<'Invite'> => ({
  id: newId('inv'),
  object: 'invite',
  email,
  role: 'editor',
  status: 'pending',
  expires_at: expiresAt,
  revoked_at: null,
  created_at: at(0),
});

/** What a refused call threw (the call must be refused). */
const refusal = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('the call was not refused');
    },
    (error: unknown) => error,
  );

describe.each(storeKinds)('people on the %s store', (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await createTestStore(kind);
  });
  afterEach(async () => {
    await store.close();
  });

  const count = async (table: string): Promise<number> => Number((await storedRows(store, `SELECT COUNT(*) AS n FROM ${table}`))[0]!.n);

  describe('accounts and memberships', () => {
    it('when an account is ensured twice, then the first is kept, its email in lower case, and found by any case', async () => {
      const first = await store.people.ensureAccount(account('Ada@Example.COM', 'Ada'));
      expect(first).toMatchObject({ email: 'ada@example.com', name: 'Ada', createdAt: at(1) });
      expect(await store.people.ensureAccount(account('ada@example.com', 'Someone else', at(2)))).toEqual(first);
      expect(await store.people.getAccount(first.id)).toEqual(first);
      expect(await store.people.findAccountByEmail('ADA@example.com')).toEqual(first);
      expect(await store.people.findAccountByEmail('bob@example.com')).toBeUndefined();
      expect(await store.people.getAccount('acct_missing')).toBeUndefined();
    });

    it('when two requests ensure one email at once, then one account is made and both get it', async () => {
      const [one, other] = await Promise.all([
        store.people.ensureAccount(account('grace@example.com')),
        store.people.ensureAccount(account('grace@example.com')),
      ]);
      expect(one).toEqual(other);
      expect(await count('accounts')).toBe(1);
    });

    it('when a person is a member of workspaces by their email, then memberships lists them, oldest first, with name and plan', async () => {
      const older = await workspace(store);
      const newer = newId('ws');
      await store.workspaces.create({ id: newer, name: 'Globex', plan: 'enterprise', createdAt: at(0) });
      const there = member('Ada@example.com', 'admin', at(7));
      const here = member('ada@example.com', 'viewer', at(6));
      await store.team.addMember(newer, there);
      await store.team.addMember(older, here);
      await store.team.addMember(older, member('bob@example.com'));
      expect(await store.people.memberships('ADA@example.com')).toEqual([
        { memberId: here.id, workspaceId: older, workspaceName: 'Acme', plan: 'business', role: 'viewer', joinedAt: at(6) },
        { memberId: there.id, workspaceId: newer, workspaceName: 'Globex', plan: 'enterprise', role: 'admin', joinedAt: at(7) },
      ]);
      expect(await store.people.memberships('nobody@example.com')).toEqual([]);
    });
  });

  describe('one-time links', () => {
    it('when a link is created with its message, then both are stored, the email in lower case', async () => {
      const message = mail('one');
      await store.people.createLink(link('one', { email: 'Ada@Example.com' }), message);
      expect(await store.people.findLink(hashOf('one'))).toEqual(link('one'));
      expect(await store.people.dueMail(at(0), 10)).toEqual([message]);
      await store.people.createLink(link('alone', { purpose: 'challenge', email: '' }));
      expect(await store.people.findLink(hashOf('alone'))).toMatchObject({ purpose: 'challenge', email: '' });
      expect(await store.people.findLink(hashOf('unknown'))).toBeUndefined();
    });

    it('when a link is spent, then it is returned once, and found as used', async () => {
      await store.people.createLink(link('once'));
      expect(await store.people.spendLink(hashOf('once'), at(60))).toEqual(link('once', { usedAt: at(60) }));
      expect(await store.people.spendLink(hashOf('once'), at(61))).toBeUndefined();
      expect(await store.people.findLink(hashOf('once'))).toMatchObject({ usedAt: at(60) });
      expect(await store.people.spendLink(hashOf('unknown'), at(60))).toBeUndefined();
    });

    it('when recent links are counted, then only those of the email and purpose made after the time count, used or not', async () => {
      await store.people.createLink(link('one', { createdAt: at(10) }));
      await store.people.createLink(link('two', { createdAt: at(20), email: 'ADA@example.com' }));
      await store.people.createLink(link('three', { createdAt: at(30) }));
      await store.people.spendLink(hashOf('three'), at(31));
      await store.people.createLink(link('other address', { createdAt: at(30), email: 'bob@example.com' }));
      await store.people.createLink(link('challenge', { createdAt: at(30), purpose: 'challenge' }));
      expect(await store.people.recentLinks('Ada@Example.com', 'sign_in', at(10))).toBe(2);
      expect(await store.people.recentLinks('ada@example.com', 'sign_in', at(9))).toBe(3);
      expect(await store.people.recentLinks('ada@example.com', 'sign_in', at(30))).toBe(0);
      expect(await store.people.recentLinks('ada@example.com', 'challenge', at(0))).toBe(1);
    });

    it('when spends of one link race, then exactly one spends it', async () => {
      await store.people.createLink(link('raced'));
      const spends = await Promise.all([1, 2, 3, 4].map((second) => store.people.spendLink(hashOf('raced'), at(second))));
      expect(spends.filter((spent) => spent !== undefined)).toHaveLength(1);
    });

    it('when a link has expired, then it is not spent, and stays unused', async () => {
      await store.people.createLink(link('late', { expiresAt: at(900) }));
      expect(await store.people.spendLink(hashOf('late'), at(900))).toBeUndefined();
      expect(await store.people.findLink(hashOf('late'))).toMatchObject({ usedAt: null });
      expect(await store.people.spendLink(hashOf('late'), at(899))).toMatchObject({ usedAt: at(899) });
    });

    it("when an invite's links are spent, then each unused one is, and other links stay unused", async () => {
      const workspaceId = await workspace(store);
      const [mine, theirs] = [invite('ada@example.com'), invite('bob@example.com')];
      await store.team.createInvite(workspaceId, mine, audit(workspaceId, 'member.invited'));
      await store.team.createInvite(workspaceId, theirs, audit(workspaceId, 'member.invited'));
      const of = (inviteId: string) => ({ purpose: 'invite' as const, workspaceId, inviteId });
      await store.people.createLink(link('first', of(mine.id)));
      await store.people.createLink(link('used', { ...of(mine.id), usedAt: at(5) }));
      await store.people.createLink(link('second', of(mine.id)));
      await store.people.createLink(link('other', of(theirs.id)));
      await store.people.spendInviteLinks(mine.id, at(30));
      expect(await store.people.findLink(hashOf('first'))).toMatchObject({ usedAt: at(30) });
      expect(await store.people.findLink(hashOf('second'))).toMatchObject({ usedAt: at(30) });
      expect(await store.people.findLink(hashOf('used'))).toMatchObject({ usedAt: at(5) });
      expect(await store.people.findLink(hashOf('other'))).toMatchObject({ usedAt: null });
    });
  });

  describe('accepting an invitation', () => {
    let workspaceId: string;
    beforeEach(async () => {
      workspaceId = await workspace(store);
    });

    /** An invite of `email` with its link (`text`), as sending the invitation stores them. */
    async function invited(email: string, text: string, expiresAt?: string) {
      const sent = invite(email, expiresAt);
      await store.team.createInvite(workspaceId, sent, audit(workspaceId, 'member.invited'));
      await store.people.createLink(link(text, { purpose: 'invite', email, workspaceId, inviteId: sent.id, expiresAt: sent.expires_at }));
      return sent;
    }

    const acceptance = (sent: Schema<'Invite'>, text: string, person = account(sent.email)) => ({
      workspaceId,
      inviteId: sent.id,
      linkHash: hashOf(text),
      account: person,
      member: { ...member(sent.email, sent.role, at(50)), name: person.name },
      audit: audit(workspaceId, 'member.joined'),
      at: at(50),
    });

    /** The team and the people as an acceptance leaves them. */
    const state = async (sent: Schema<'Invite'>, text: string) => ({
      members: (await store.team.listMembers(workspaceId, { limit: 10 })).data.map(({ email, role }) => ({ email, role })),
      // Read as of before the acceptance, so that reading does not mark an invite expired.
      invite: (await store.team.getInvite(workspaceId, sent.id, at(0)))?.status,
      linkUsedAt: (await store.people.findLink(hashOf(text)))?.usedAt,
      account: await store.people.findAccountByEmail(sent.email),
      auditEvents: (await store.auditEvents.list(workspaceId, {}, { limit: 10 })).data.length,
    });

    it('when the invited person accepts, then the link is spent, the account and member made, the invite accepted, the event written', async () => {
      const sent = await invited('ada@example.com', 'invitation');
      const before = await state(sent, 'invitation');
      const accepted = acceptance(sent, 'invitation', account('ada@example.com', 'Ada'));
      await store.people.acceptInvite(accepted);
      expect(await state(sent, 'invitation')).toEqual({
        members: [{ email: 'ada@example.com', role: 'editor' }],
        invite: 'accepted',
        linkUsedAt: at(50),
        account: accepted.account,
        auditEvents: before.auditEvents + 1,
      });
      expect(await store.people.memberships('ada@example.com')).toMatchObject([{ memberId: accepted.member.id, role: 'editor' }]);
    });

    it('when the person already has an account, then it is kept', async () => {
      const sent = await invited('ada@example.com', 'invitation');
      const existing = await store.people.ensureAccount(account('ada@example.com', 'Ada'));
      await store.people.acceptInvite(acceptance(sent, 'invitation', account('ada@example.com', 'Other')));
      expect(await store.people.findAccountByEmail('ada@example.com')).toEqual(existing);
      expect(await count('accounts')).toBe(1);
    });

    /** What happens between the invitation and its acceptance, and the link the acceptance presents. */
    const meanwhile: Array<[string, 'link_spent' | 'invite_closed' | 'member_exists', (sent: Schema<'Invite'>) => Promise<string>]> = [
      [
        'the link was used',
        'link_spent',
        async () => {
          await store.people.spendLink(hashOf('invitation'), at(40));
          return 'invitation';
        },
      ],
      [
        "the link is another invite's",
        'link_spent',
        async () => {
          await invited('bob@example.com', 'invitation-of-bob');
          return 'invitation-of-bob';
        },
      ],
      [
        'the invite was revoked',
        'invite_closed',
        async (sent) => {
          await store.team.revokeInvite(workspaceId, sent.id, at(40), audit(workspaceId, 'invite.revoked'));
          return 'invitation';
        },
      ],
      [
        'the email became a member',
        'member_exists',
        async (sent) => {
          await store.team.addMember(workspaceId, member(sent.email));
          return 'invitation';
        },
      ],
    ];

    it.each(meanwhile)('when %s, then the acceptance is refused (%s) and nothing changes', async (_case, reason, happen) => {
      const sent = await invited('ada@example.com', 'invitation');
      const text = await happen(sent);
      const before = { ...(await state(sent, 'invitation')), presented: await store.people.findLink(hashOf(text)) };
      expect(await refusal(store.people.acceptInvite(acceptance(sent, text)))).toEqual(new StoreConflict(reason));
      expect({ ...(await state(sent, 'invitation')), presented: await store.people.findLink(hashOf(text)) }).toEqual(before);
    });

    it('when the link has expired, then the acceptance is refused as link_spent and nothing changes', async () => {
      const sent = await invited('ada@example.com', 'invitation', at(49));
      const before = await state(sent, 'invitation');
      expect(await refusal(store.people.acceptInvite(acceptance(sent, 'invitation')))).toEqual(new StoreConflict('link_spent'));
      expect(await state(sent, 'invitation')).toEqual(before);
    });

    it('when the invite has expired though its link has not, then the acceptance is refused as invite_closed and nothing changes', async () => {
      const sent = await invited('ada@example.com', 'invitation', at(49));
      await store.people.createLink(link('renewed', { purpose: 'invite', workspaceId, inviteId: sent.id, expiresAt: at(900) }));
      const before = await state(sent, 'renewed');
      expect(await refusal(store.people.acceptInvite(acceptance(sent, 'renewed')))).toEqual(new StoreConflict('invite_closed'));
      expect(await state(sent, 'renewed')).toEqual(before);
    });

    it('when two acceptances of one invitation race, then one makes the member and the other is refused', async () => {
      const sent = await invited('ada@example.com', 'invitation');
      const results = await Promise.allSettled([1, 2].map(() => store.people.acceptInvite(acceptance(sent, 'invitation'))));
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      expect(results.find((result) => result.status === 'rejected')).toMatchObject({ reason: new StoreConflict('link_spent') });
      expect((await store.team.listMembers(workspaceId, { limit: 10 })).data).toHaveLength(1);
    });
  });

  describe('passkeys and sessions', () => {
    let ada: Account;
    let bob: Account;
    beforeEach(async () => {
      ada = await store.people.ensureAccount(account('ada@example.com', 'Ada'));
      bob = await store.people.ensureAccount(account('bob@example.com'));
    });

    it('when passkeys are added, then they are listed oldest first, found by credential, and a use records its counter', async () => {
      const [first, second] = [passkey(ada.id, 'cred-1', at(3)), passkey(ada.id, 'cred-2', at(4))];
      await store.people.addPasskey(second);
      await store.people.addPasskey(first);
      await store.people.addPasskey(passkey(bob.id, 'cred-3'));
      expect(await store.people.listPasskeys(ada.id)).toEqual([first, second]);
      expect(await store.people.findPasskey('cred-2')).toEqual(second);
      expect(await store.people.findPasskey('cred-none')).toBeUndefined();
      await store.people.recordPasskeyUse(second.id, 4_000_000_000, at(20));
      expect(await store.people.findPasskey('cred-2')).toEqual({ ...second, counter: 4_000_000_000, lastUsedAt: at(20) });
      expect(await store.people.findPasskey('cred-1')).toEqual(first);
    });

    it('when a credential is registered twice, then the second is refused as passkey_exists', async () => {
      await store.people.addPasskey(passkey(ada.id, 'cred-1'));
      expect(await refusal(store.people.addPasskey(passkey(bob.id, 'cred-1')))).toEqual(new StoreConflict('passkey_exists'));
      expect(await store.people.listPasskeys(bob.id)).toEqual([]);
    });

    it('when a passkey is removed, then the sessions it began end and the others stay; someone else’s is not removed', async () => {
      const [removed, kept] = [passkey(ada.id, 'cred-1'), passkey(ada.id, 'cred-2')];
      await store.people.addPasskey(removed);
      await store.people.addPasskey(kept);
      await store.people.createSession(session(ada.id, 'by-removed', removed.id));
      await store.people.createSession(session(ada.id, 'by-kept', kept.id));
      await store.people.createSession(session(ada.id, 'by-link'));
      expect(await store.people.removePasskey(bob.id, removed.id, at(30))).toBe(false);
      expect(await store.people.findSession(hashOf('by-removed'))).toBeDefined();
      expect(await store.people.removePasskey(ada.id, removed.id, at(30))).toBe(true);
      expect(await store.people.listPasskeys(ada.id)).toEqual([kept]);
      expect(await store.people.findSession(hashOf('by-removed'))).toBeUndefined();
      expect(await store.people.findSession(hashOf('by-kept'))).toBeDefined();
      expect(await store.people.findSession(hashOf('by-link'))).toBeDefined();
      expect(await store.people.removePasskey(ada.id, removed.id, at(31))).toBe(false);
    });

    it('when a session is created, touched and ended, then it is found with its account until it ends', async () => {
      const begun = session(ada.id, 'cookie');
      await store.people.createSession(begun);
      expect(await store.people.findSession(hashOf('cookie'))).toEqual({ session: begun, account: ada });
      await store.people.touchSession(begun.id, at(70));
      expect(await store.people.findSession(hashOf('cookie'))).toEqual({ session: { ...begun, lastSeenAt: at(70) }, account: ada });
      await store.people.endSession(begun.id, at(80));
      expect(await store.people.findSession(hashOf('cookie'))).toBeUndefined();
      expect(await storedRows(store, 'SELECT ended_at FROM sessions WHERE id = ?', begun.id)).toHaveLength(1);
      expect(await store.people.findSession(hashOf('unknown'))).toBeUndefined();
    });

    it("when an account's sessions are ended, then all of theirs end and no one else's", async () => {
      await store.people.createSession(session(ada.id, 'ada-1'));
      await store.people.createSession(session(ada.id, 'ada-2'));
      await store.people.createSession(session(bob.id, 'bob-1'));
      await store.people.endSessionsOf(ada.id, at(90));
      expect(await store.people.findSession(hashOf('ada-1'))).toBeUndefined();
      expect(await store.people.findSession(hashOf('ada-2'))).toBeUndefined();
      expect(await store.people.findSession(hashOf('bob-1'))).toMatchObject({ account: bob });
    });
  });

  describe('outgoing mail', () => {
    it('when messages are queued, then the due ones are listed oldest first, at most the limit', async () => {
      const [first, second, third] = [mail('a', { createdAt: at(1) }), mail('b', { createdAt: at(2) }), mail('c', { createdAt: at(3) })];
      for (const message of [third, first, second]) await store.people.createLink(link(message.subject), message);
      await store.people.createLink(link('later'), mail('later', { createdAt: at(4), nextAttemptAt: at(100) }));
      expect(await store.people.dueMail(at(50), 10)).toEqual([first, second, third]);
      expect(await store.people.dueMail(at(50), 2)).toEqual([first, second]);
      expect((await store.people.dueMail(at(100), 10)).map((message) => message.subject)).toEqual(['a', 'b', 'c', 'later']);
    });

    it('when a message is claimed, then its attempt is counted and it is not due until the retry; a second claim is refused', async () => {
      const message = mail('claimed');
      await store.people.createLink(link('claimed'), message);
      expect(await store.people.claimMail(message.id, at(10), at(70))).toBe(true);
      expect(await store.people.claimMail(message.id, at(10), at(70))).toBe(false);
      expect(await store.people.dueMail(at(69), 10)).toEqual([]);
      expect(await store.people.dueMail(at(70), 10)).toEqual([{ ...message, attempts: 1, nextAttemptAt: at(70) }]);
      expect(await store.people.claimMail(message.id, at(70), at(200))).toBe(true);
      expect(await store.people.dueMail(at(200), 10)).toMatchObject([{ attempts: 2 }]);
      expect(await store.people.claimMail('mail_missing', at(70), at(200))).toBe(false);
    });

    it('when senders claim one message at once, then exactly one gets it', async () => {
      const message = mail('raced');
      await store.people.createLink(link('raced'), message);
      const claims = await Promise.all([1, 2, 3, 4].map(() => store.people.claimMail(message.id, at(10), at(70))));
      expect(claims.filter(Boolean)).toHaveLength(1);
    });

    it('when a message is marked sent, then it is never due again and its subject, text and html are emptied', async () => {
      const [sent, other] = [mail('sent'), mail('other')];
      await store.people.createLink(link('sent'), sent);
      await store.people.createLink(link('other'), other);
      await store.people.claimMail(sent.id, at(0), at(60));
      await store.people.markMailSent(sent.id, at(5));
      expect(await store.people.dueMail(at(1000), 10)).toEqual([other]);
      expect(await storedRows(store, 'SELECT recipient, subject, text, html, sent_at FROM outgoing_mail WHERE id = ?', sent.id)).toEqual([
        { recipient: 'ada@example.com', subject: '', text: '', html: '', sent_at: at(5) },
      ]);
    });
  });

  describe('purging what has ended', () => {
    // The hourly purge at `now` passes cutoffs a day back (src/server.ts): a session idle 12 hours has ended.
    const hour = 3600;
    const now = 10 * 24 * hour;
    const ago = (seconds: number): string => at(now - seconds);
    const cutoffs = { before: ago(24 * hour), idleBefore: ago(36 * hour) };
    const ids = async (table: string): Promise<unknown[]> =>
      (await storedRows(store, `SELECT id FROM ${table}`)).map((row) => row.id).sort();
    const sorted = (...rows: Array<{ id: string }>): string[] => rows.map((row) => row.id).sort();
    let ada: Account;
    beforeEach(async () => {
      ada = await store.people.ensureAccount(account('ada@example.com'));
    });

    /** A session begun `begun` seconds ago, 7 days long, last seen `seen` seconds ago, ended `ended` seconds ago. */
    const aged = (text: string, begun: number, seen: number, ended: number | null = null): Session => ({
      ...session(ada.id, text),
      createdAt: ago(begun),
      lastSeenAt: ago(seen),
      expiresAt: ago(begun - 7 * 24 * hour),
      endedAt: ended === null ? null : ago(ended),
    });

    it('when links expired more than a day ago, then they are purged, used or not, challenges too; later ones stay', async () => {
      const purged = [
        link('expired', { expiresAt: ago(25 * hour) }),
        link('expired-used', { expiresAt: ago(25 * hour), usedAt: ago(25.1 * hour) }),
        link('expired-challenge', { purpose: 'challenge', email: '', expiresAt: ago(25 * hour) }),
      ];
      const kept = [
        link('expired-lately', { expiresAt: ago(23 * hour) }),
        link('expired-a-day-ago', { expiresAt: cutoffs.before }),
        link('live', { expiresAt: ago(-600) }),
      ];
      for (const one of [...kept, ...purged]) await store.people.createLink(one);
      expect(await store.people.purgeExpired(cutoffs, 100)).toBe(3);
      for (const one of purged) expect(await store.people.findLink(one.hash)).toBeUndefined();
      for (const one of kept) expect(await store.people.findLink(one.hash)).toEqual(one);
      expect(await store.people.purgeExpired(cutoffs, 100)).toBe(0);
    });

    it('when sessions ended, reached their absolute end or went idle more than a day ago, then they are purged; later ones stay', async () => {
      const endedLongAgo = aged('ended-long-ago', 30 * hour, 26 * hour, 25 * hour);
      const absoluteEndLongAgo = aged('absolute-end-long-ago', (7 * 24 + 25) * hour, 25 * hour);
      const idleLongAgo = aged('idle-long-ago', 40 * hour, 37 * hour);
      const kept = [
        aged('ended-lately', 30 * hour, 23 * hour, 23 * hour),
        aged('absolute-end-lately', (7 * 24 + 23) * hour, 23 * hour),
        aged('idle-lately', 40 * hour, 35 * hour),
        aged('live', 40 * hour, hour),
      ];
      for (const one of [...kept, endedLongAgo, absoluteEndLongAgo, idleLongAgo]) await store.people.createSession(one);
      expect(await store.people.purgeExpired(cutoffs, 100)).toBe(3);
      expect(await ids('sessions')).toEqual(sorted(...kept));
      expect(await store.people.findSession(hashOf('live'))).toEqual({ session: kept[3], account: ada });
    });

    it('when mail was sent more than a day ago, then it is purged; mail sent later, unsent or parked stays', async () => {
      const [sentLongAgo, sentLately] = [
        mail('sent-long-ago', { createdAt: ago(26 * hour) }),
        mail('sent-lately', { createdAt: ago(24 * hour) }),
      ];
      const unsent = mail('unsent', { createdAt: ago(9 * 24 * hour), nextAttemptAt: ago(9 * 24 * hour) });
      const parked = mail('parked', { createdAt: ago(9 * 24 * hour), attempts: MAX_MAIL_ATTEMPTS, nextAttemptAt: PARKED });
      for (const one of [sentLongAgo, sentLately, unsent, parked])
        await store.people.createLink(link(one.subject, { expiresAt: ago(-600) }), one);
      await store.people.markMailSent(sentLongAgo.id, ago(25 * hour));
      await store.people.markMailSent(sentLately.id, ago(23 * hour));
      expect(await store.people.purgeExpired(cutoffs, 100)).toBe(1);
      expect(await ids('outgoing_mail')).toEqual(sorted(sentLately, unsent, parked));
      expect(await store.people.dueMail(at(now), 10)).toEqual([unsent]);
    });

    it('when more has ended than the limit, then each call purges at most the limit, oldest first: links, sessions, then mail', async () => {
      const links = [27, 26, 25].map((hours) => link(`expired-${hours}`, { expiresAt: ago(hours * hour) }));
      const idle = aged('idle', 48 * hour, 40 * hour);
      const ended = aged('ended', 30 * hour, 26 * hour, 25 * hour);
      const [sentLater, sentEarlier] = [
        mail('sent-later', { createdAt: ago(26 * hour) }),
        mail('sent-earlier', { createdAt: ago(26 * hour) }),
      ];
      for (const one of [links[2]!, links[0]!, links[1]!]) await store.people.createLink(one);
      await store.people.createSession(ended);
      await store.people.createSession(idle);
      for (const one of [sentLater, sentEarlier]) await store.people.createLink(link(one.subject, { expiresAt: ago(-600) }), one);
      await store.people.markMailSent(sentLater.id, ago(25 * hour));
      await store.people.markMailSent(sentEarlier.id, ago(25.5 * hour));
      const linksLeft = async () => (await Promise.all(links.map((one) => store.people.findLink(one.hash)))).filter(Boolean);

      expect(await store.people.purgeExpired(cutoffs, 2)).toBe(2);
      expect(await linksLeft()).toEqual([links[2]]);
      expect(await ids('sessions')).toEqual(sorted(idle, ended));
      expect(await store.people.purgeExpired(cutoffs, 2)).toBe(2);
      expect(await linksLeft()).toEqual([]);
      expect(await ids('sessions')).toEqual([ended.id]);
      expect(await ids('outgoing_mail')).toEqual(sorted(sentLater, sentEarlier));
      expect(await store.people.purgeExpired(cutoffs, 2)).toBe(2);
      expect(await ids('sessions')).toEqual([]);
      expect(await ids('outgoing_mail')).toEqual([sentLater.id]);
      expect(await store.people.purgeExpired(cutoffs, 2)).toBe(1);
      expect(await ids('outgoing_mail')).toEqual([]);
      expect(await store.people.purgeExpired(cutoffs, 2)).toBe(0);
    });
  });

  describe('removing a member', () => {
    let workspaceId: string;
    const clientId = 'client_people';
    beforeEach(async () => {
      workspaceId = await workspace(store);
      await store.team.addMember(workspaceId, member('owner@example.com', 'admin'));
      await store.oauth.createClient({
        id: clientId,
        name: 'Partner',
        redirectUris: ['https://app.example.com/cb'],
        secretHash: null,
        createdAt: at(0),
      });
    });

    /** A consent by `memberId` (null: the operator's command) with its code and a token pair; the token hashes' texts. */
    async function granted(memberId: string | null, text: string) {
      const grant = {
        id: newId('key'),
        clientId,
        workspaceId,
        scopes: ['read' as const],
        environment: 'live' as const,
        memberId,
        createdAt: at(20),
        revokedAt: null,
      };
      await store.oauth.createGrant(grant, {
        hash: hashOf(`code-${text}`),
        redirectUri: 'https://app.example.com/cb',
        codeChallenge: 'c',
        expiresAt: at(600),
      });
      const token = (kind: string) => ({ id: newId('key'), hash: hashOf(`${kind}-${text}`), expiresAt: at(3600) });
      await store.oauth.issueTokens(grant.id, { access: token('access'), refresh: token('refresh'), issuedAt: at(21) });
      return grant;
    }

    const tokensOf = async (text: string) => ({
      access: await store.oauth.findAccessToken(hashOf(`access-${text}`)),
      refresh: await store.oauth.findRefreshToken(hashOf(`refresh-${text}`)),
    });

    it('when a member is removed, then their grants and tokens are revoked and their sessions end; other members keep theirs', async () => {
      const [leaving, staying] = [member('Ada@example.com'), member('bob@example.com')];
      await store.team.addMember(workspaceId, leaving);
      await store.team.addMember(workspaceId, staying);
      const ada = await store.people.ensureAccount(account('ada@example.com'));
      const bob = await store.people.ensureAccount(account('bob@example.com'));
      await store.people.createSession(session(ada.id, 'ada'));
      await store.people.createSession(session(bob.id, 'bob'));
      await granted(leaving.id, 'ada');
      await granted(staying.id, 'bob');
      await granted(null, 'cli');
      expect((await tokensOf('ada')).access?.grant.memberId).toBe(leaving.id);

      await store.team.removeMember(workspaceId, leaving.id, { ...audit(workspaceId), at: at(40) });

      const revoked = await tokensOf('ada');
      expect(revoked.access).toMatchObject({ revokedAt: at(40), grant: { revokedAt: at(40) } });
      expect(revoked.refresh).toMatchObject({ revokedAt: at(40), grant: { revokedAt: at(40) } });
      expect(await storedRows(store, 'SELECT revocation_reason FROM oauth_grants WHERE id = ?', revoked.access!.grant.id)).toEqual([
        { revocation_reason: 'member_removed' },
      ]);
      expect(await store.people.findSession(hashOf('ada'))).toBeUndefined();
      for (const text of ['bob', 'cli']) {
        const kept = await tokensOf(text);
        expect(kept.access).toMatchObject({ revokedAt: null, grant: { revokedAt: null } });
        expect(kept.refresh).toMatchObject({ revokedAt: null });
      }
      expect((await tokensOf('bob')).access?.grant.memberId).toBe(staying.id);
      expect(await store.people.findSession(hashOf('bob'))).toMatchObject({ account: bob });
    });

    it('when a consent names a member who has been removed, then no grant is stored (RecordNotFound)', async () => {
      const gone = member('ada@example.com');
      await store.team.addMember(workspaceId, gone);
      await store.team.removeMember(workspaceId, gone.id, audit(workspaceId));
      expect(await refusal(granted(gone.id, 'late'))).toEqual(new RecordNotFound('member', gone.id));
      expect(await refusal(granted('mem_elsewhere', 'other'))).toEqual(new RecordNotFound('member', 'mem_elsewhere'));
      expect(await count('oauth_grants')).toBe(0);
    });
  });
});
