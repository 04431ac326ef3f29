/**
 * The three outgoing-mail methods of the people store, kept in memory with the store's rules (due = unsent and its
 * next attempt reached; a claim succeeds once per due time; sending empties the message), and each answering on a
 * later turn of the event loop, as a database does, so that two senders' calls interleave.
 */
import type { Outbox } from '../../src/mail/sender.js';
import type { OutgoingMail } from '../../src/store/people-store.js';

const later = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface MemoryOutbox extends Outbox {
  rows: Map<string, OutgoingMail>;
  /** Queues a message to `to`, due at `at` (its id and subject name the recipient). */
  queue(to: string, at: string): OutgoingMail;
  /** How many times each method was called. */
  calls: { dueMail: number; claimMail: number; markMailSent: number };
}

export function memoryOutbox(): MemoryOutbox {
  const rows = new Map<string, OutgoingMail>();
  const calls = { dueMail: 0, claimMail: 0, markMailSent: 0 };
  return {
    rows,
    calls,
    queue(to, at) {
      const mail: OutgoingMail = {
        id: `mail_${String(rows.size).padStart(4, '0')}`,
        to,
        subject: `For ${to}`,
        text: `Open this:\n\nhttps://forms.example/sign-in/link?token=${to}\n`,
        html: `<p><a href="https://forms.example/sign-in/link?token=${to}">Open this</a></p>`,
        createdAt: at,
        attempts: 0,
        nextAttemptAt: at,
        sentAt: null,
      };
      rows.set(mail.id, mail);
      return mail;
    },
    async dueMail(now, limit) {
      calls.dueMail++;
      await later();
      return [...rows.values()]
        .filter((mail) => mail.sentAt === null && mail.nextAttemptAt <= now)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
        .slice(0, limit)
        .map((mail) => ({ ...mail }));
    },
    async claimMail(id, now, retryAt) {
      calls.claimMail++;
      await later();
      const mail = rows.get(id);
      if (!mail || mail.sentAt !== null || mail.nextAttemptAt > now) return false;
      mail.attempts++;
      mail.nextAttemptAt = retryAt;
      return true;
    },
    async markMailSent(id, at) {
      calls.markMailSent++;
      await later();
      const mail = rows.get(id)!;
      Object.assign(mail, { sentAt: at, subject: '', text: '', html: '' });
    },
  };
}
