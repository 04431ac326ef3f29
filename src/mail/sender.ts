/**
 * Sends the mail queued in the store (`outgoing_mail`, written in the same transaction as the link a message
 * carries). Any number of senders, in one process or several, may drain the same store: each message is first
 * claimed (the store moves its next attempt to a retry time, only if no other sender moved it first), then handed to
 * the mailer, then marked sent (which empties it). So:
 * - two senders never both send a message: only one claim of it succeeds;
 * - a sender that crashes or fails mid-send leaves the message claimed until its retry time, and it is tried then;
 * - a message handed over whose marking then fails is sent again at its retry time: delivery is at least once.
 *
 * Retries: after the first attempt's claim a message waits 1 minute, then twice as long after each attempt, at most an
 * hour (1, 2, 4, 8, 16, 32, 60, 60, 60 minutes: about 4 hours in all). The 10th attempt is the last: its claim parks
 * the message (its next attempt in the year 9999, so it never comes due again), and its failure is logged as an error.
 * The links messages carry have expired by then (sign-in links after 15 minutes) or can be sent again (an invite's
 * resend). The first delay is also how long a claim holds a message against other senders, so an SMTP delivery's
 * time limits (src/mail/mailer.ts) stay well below it.
 */
import type { Logger } from 'pino';
import type { OutgoingMail, PeopleStore } from '../store/people-store.js';
import type { Mailer } from './mailer.js';

/** The part of the store a sender uses. */
export type Outbox = Pick<PeopleStore, 'dueMail' | 'claimMail' | 'markMailSent'>;

export const MAX_MAIL_ATTEMPTS = 10;

/** How long a claim for the `attempt`-th attempt (1 for the first) holds the message before it may be tried again. */
export function mailRetryDelayMs(attempt: number): number {
  return Math.min(60_000 * 2 ** (attempt - 1), 3_600_000);
}

/** A next attempt that never comes: where a message that used all its attempts is left, unsent. */
export const PARKED = '9999-12-31T23:59:59.999Z';

export interface MailSenderOptions {
  now: () => Date;
  log: Logger;
  /** Messages one drain takes at most (default 20); a drain that took that many nudges another. */
  batch?: number;
  /** Delay before the next attempt, by the attempt being made (default `mailRetryDelayMs`). */
  backoff?: (attempt: number) => number;
  /** Attempts in all (default `MAX_MAIL_ATTEMPTS`). */
  maxAttempts?: number;
  /** Also drain this often, for retries that come due with nobody nudging; unset: only when nudged or drained. */
  pollIntervalMs?: number;
}

export interface MailSender {
  /** Sends the due messages of one batch; resolves with how many were sent. A call while a drain runs gets the next. */
  drain(): Promise<number>;
  /** Asks for a drain soon and returns at once; nudges before it starts make one drain. Never throws. */
  nudge(): void;
  /** Stops nudging and polling, and resolves when the drain under way (if any) has ended. */
  stop(): Promise<void>;
}

export function mailSender(store: Outbox, mailer: Mailer, options: MailSenderOptions): MailSender {
  const { now, log } = options;
  const batch = options.batch ?? 20;
  const backoff = options.backoff ?? mailRetryDelayMs;
  const maxAttempts = options.maxAttempts ?? MAX_MAIL_ATTEMPTS;
  let running: Promise<number> | null = null;
  let next: Promise<number> | null = null;
  let scheduled: NodeJS.Timeout | null = null;
  let stopped = false;

  /** Claims, sends and marks one message; true when this sender sent it. */
  async function attempt(mail: OutgoingMail): Promise<boolean> {
    const number = mail.attempts + 1;
    const last = number >= maxAttempts;
    const at = now();
    const retryAt = last ? PARKED : new Date(at.getTime() + backoff(number)).toISOString();
    if (!(await store.claimMail(mail.id, at.toISOString(), retryAt))) return false;
    try {
      await mailer.send({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    } catch (error) {
      if (last) log.error({ err: error, mailId: mail.id, attempt: number }, `mail not sent after ${number} attempts: given up`);
      else log.warn({ err: error, mailId: mail.id, attempt: number, retryAt }, 'mail not sent: it is tried again later');
      return false;
    }
    await store.markMailSent(mail.id, now().toISOString());
    return true;
  }

  async function drainOnce(): Promise<number> {
    const due = await store.dueMail(now().toISOString(), batch);
    let sent = 0;
    for (const mail of due) {
      if (stopped) break;
      if (await attempt(mail)) sent++;
    }
    // A full batch may have left more due: the claims moved these out of the way, so the next drain takes others.
    if (due.length >= batch) nudge();
    return sent;
  }

  function drain(): Promise<number> {
    if (stopped) return Promise.resolve(0);
    if (running === null) {
      running = drainOnce().finally(() => {
        running = null;
      });
      return running;
    }
    // The drain under way may have read the due messages before the caller queued one: another follows it.
    next ??= running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        next = null;
        return drain();
      });
    return next;
  }

  function nudge(): void {
    if (stopped || scheduled !== null) return;
    scheduled = setTimeout(() => {
      scheduled = null;
      drain().catch((error: unknown) => log.error({ err: error }, 'mail sender: a drain failed; the next one tries again'));
    }, 0);
  }

  const poll = options.pollIntervalMs === undefined ? null : setInterval(nudge, options.pollIntervalMs);
  poll?.unref();

  return {
    drain,
    nudge,
    async stop() {
      stopped = true;
      // Once stopped, a nudge's timer or the poll would find nothing to do: clearing them lets the process exit sooner.
      clearTimeout(scheduled ?? undefined);
      clearInterval(poll ?? undefined);
      await Promise.allSettled([running, next]);
    },
  };
}
