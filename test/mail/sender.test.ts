import { describe, expect, it, vi } from 'vitest';
import { type Mailer, type MailMessage, smtpMailer } from '../../src/mail/mailer.js';
import { MAX_MAIL_ATTEMPTS, mailRetryDelayMs, mailSender, PARKED } from '../../src/mail/sender.js';
import { linksIn, useSmtpServer } from '../support/smtp.js';
import { memoryOutbox } from './memory-outbox.js';
import { recordedLog } from './recorded-log.js';

const start = Date.parse('2026-12-06T10:00:00.000Z');

/** A clock the test moves by hand. */
function fakeClock() {
  let at = start;
  return {
    now: () => new Date(at),
    iso: (offsetMs = 0) => new Date(at + offsetMs).toISOString(),
    advance(ms: number) {
      at += ms;
    },
    set(iso: string) {
      at = Date.parse(iso);
    },
  };
}

/** Records what it is asked to send; `failing` makes it refuse, `gate` holds each send until released. */
function recordingMailer() {
  const sent: MailMessage[] = [];
  const mailer = {
    sent,
    failing: false,
    gate: null as Promise<void> | null,
    async send(message: MailMessage) {
      if (mailer.gate) await mailer.gate;
      if (mailer.failing) throw new Error('421 the server is busy');
      sent.push(message);
    },
  } satisfies Mailer & Record<string, unknown>;
  return mailer;
}

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

function setUp(options: { batch?: number; maxAttempts?: number } = {}) {
  const clock = fakeClock();
  const outbox = memoryOutbox();
  const mailer = recordingMailer();
  const recorded = recordedLog();
  const sender = mailSender(outbox, mailer, { now: clock.now, log: recorded.log, ...options });
  return { clock, outbox, mailer, sender, ...recorded };
}

describe('a drain', () => {
  it('when two messages are due, then each is sent once, as queued, and marked sent and emptied', async () => {
    const { clock, outbox, mailer, sender } = setUp();
    const ada = { ...outbox.queue('ada@acme.example', clock.iso()) };
    outbox.queue('grace@acme.example', clock.iso());
    expect(await sender.drain()).toBe(2);
    expect(mailer.sent).toEqual([
      { to: 'ada@acme.example', subject: ada.subject, text: ada.text, html: ada.html },
      expect.objectContaining({ to: 'grace@acme.example' }),
    ]);
    expect([...outbox.rows.values()]).toEqual([
      expect.objectContaining({ attempts: 1, sentAt: clock.iso(), subject: '', text: '', html: '' }),
      expect.objectContaining({ attempts: 1, sentAt: clock.iso(), subject: '', text: '', html: '' }),
    ]);
    expect(await sender.drain()).toBe(0);
    expect(mailer.sent).toHaveLength(2);
  });

  it('when a message is due later, then it is not sent before its time, and is at its time', async () => {
    const { clock, outbox, mailer, sender } = setUp();
    outbox.queue('ada@acme.example', clock.iso(1000));
    expect(await sender.drain()).toBe(0);
    clock.advance(999);
    expect(await sender.drain()).toBe(0);
    clock.advance(1);
    expect(await sender.drain()).toBe(1);
    expect(mailer.sent.map((message) => message.to)).toEqual(['ada@acme.example']);
  });

  it('when more are due than a batch, then one drain sends a batch, oldest first', async () => {
    const { clock, outbox, mailer, sender } = setUp({ batch: 2 });
    for (const to of ['a@x.example', 'b@x.example', 'c@x.example']) outbox.queue(to, clock.iso());
    expect(await sender.drain()).toBe(2);
    expect(mailer.sent.map((message) => message.to)).toEqual(['a@x.example', 'b@x.example']);
    await sender.stop();
  });

  it('when the mailer fails, then the message waits a minute, the failure is logged without its text, and then it is sent', async () => {
    const { clock, outbox, mailer, sender, lines, text } = setUp();
    const mail = outbox.queue('ada@acme.example', clock.iso());
    mailer.failing = true;
    expect(await sender.drain()).toBe(0);
    expect(outbox.rows.get(mail.id)).toMatchObject({ attempts: 1, nextAttemptAt: clock.iso(60_000), sentAt: null, text: mail.text });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'mail not sent: it is tried again later',
        mailId: mail.id,
        attempt: 1,
        retryAt: clock.iso(60_000),
        err: expect.objectContaining({ message: '421 the server is busy' }),
      }),
    ]);
    expect(text()).not.toContain('token=');
    mailer.failing = false;
    clock.advance(59_999);
    expect(await sender.drain()).toBe(0);
    clock.advance(1);
    expect(await sender.drain()).toBe(1);
    expect(outbox.rows.get(mail.id)).toMatchObject({ attempts: 2, sentAt: clock.iso() });
  });

  it('when it keeps failing, then the waits double up to an hour, and the 10th attempt is the last: parked, logged as an error', async () => {
    const { clock, outbox, mailer, sender, lines } = setUp();
    const mail = outbox.queue('ada@acme.example', clock.iso());
    mailer.failing = true;
    const waits: number[] = [];
    for (let attempt = 1; attempt < MAX_MAIL_ATTEMPTS; attempt++) {
      const before = clock.iso();
      expect(await sender.drain()).toBe(0);
      const next = outbox.rows.get(mail.id)!.nextAttemptAt;
      waits.push((Date.parse(next) - Date.parse(before)) / 60_000);
      clock.set(next);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
    expect(lines.map((line) => line.level)).toEqual(Array(9).fill(40));
    expect(await sender.drain()).toBe(0);
    expect(outbox.rows.get(mail.id)).toMatchObject({ attempts: 10, nextAttemptAt: PARKED, sentAt: null });
    expect(lines.at(-1)).toMatchObject({ level: 50, mailId: mail.id, attempt: 10, msg: 'mail not sent after 10 attempts: given up' });
    clock.set('9000-01-01T00:00:00.000Z');
    mailer.failing = false;
    expect(await sender.drain()).toBe(0);
    expect(mailer.sent).toEqual([]);
  });

  it('when the last attempt succeeds, then the message is sent and nothing is logged', async () => {
    const { clock, outbox, mailer, sender, lines } = setUp({ maxAttempts: 1 });
    const mail = outbox.queue('ada@acme.example', clock.iso());
    expect(await sender.drain()).toBe(1);
    expect(mailer.sent).toHaveLength(1);
    expect(outbox.rows.get(mail.id)).toMatchObject({ attempts: 1, sentAt: clock.iso() });
    expect(lines).toEqual([]);
  });

  it('when a sender stops answering mid-send (a crash), then another sends the message after the retry time, not before', async () => {
    const { clock, outbox } = setUp();
    outbox.queue('ada@acme.example', clock.iso());
    const stuck = recordingMailer();
    stuck.gate = new Promise(() => {});
    const crashed = mailSender(outbox, stuck, { now: clock.now, log: recordedLog().log });
    void crashed.drain();
    await vi.waitFor(() => expect(outbox.calls.claimMail).toBe(1));
    await new Promise((resolve) => setImmediate(resolve));
    const other = recordingMailer();
    const survivor = mailSender(outbox, other, { now: clock.now, log: recordedLog().log });
    expect(await survivor.drain()).toBe(0);
    clock.advance(mailRetryDelayMs(1));
    expect(await survivor.drain()).toBe(1);
    expect(other.sent.map((message) => message.to)).toEqual(['ada@acme.example']);
  });
});

describe('two senders on one store', () => {
  it('when they drain at once, then every message is sent exactly once, and both took part', async () => {
    const { clock, outbox } = setUp();
    const recipients = Array.from({ length: 30 }, (_, index) => `person-${index}@acme.example`);
    for (const to of recipients) outbox.queue(to, clock.iso());
    const mailers = [recordingMailer(), recordingMailer()];
    const senders = mailers.map((mailer) => mailSender(outbox, mailer, { now: clock.now, log: recordedLog().log, batch: 50 }));
    const counts = await Promise.all(senders.map((sender) => sender.drain()));
    const sent = mailers.flatMap((mailer) => mailer.sent.map((message) => message.to));
    expect(sent.sort()).toEqual([...recipients].sort());
    expect(counts[0]! + counts[1]!).toBe(30);
    expect(counts.every((count) => count > 0)).toBe(true);
    expect([...outbox.rows.values()].every((mail) => mail.attempts === 1 && mail.sentAt !== null)).toBe(true);
  });
});

describe('one sender', () => {
  it('when drained again while a drain runs, then the second waits for the first, and nothing is sent twice', async () => {
    const { clock, outbox, mailer, sender } = setUp();
    outbox.queue('ada@acme.example', clock.iso());
    const held = gate();
    mailer.gate = held.promise;
    const first = sender.drain();
    const second = sender.drain();
    const third = sender.drain();
    await vi.waitFor(() => expect(outbox.calls.claimMail).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(outbox.calls.dueMail).toBe(1);
    outbox.queue('grace@acme.example', clock.iso());
    held.open();
    expect(await first).toBe(1);
    // The second and third calls share the one drain that follows, which finds what was queued meanwhile.
    expect(await second).toBe(1);
    expect(await third).toBe(1);
    expect(outbox.calls.dueMail).toBe(2);
    expect(mailer.sent.map((message) => message.to)).toEqual(['ada@acme.example', 'grace@acme.example']);
  });

  it('when a drain fails, then the next drain after it still runs', async () => {
    const { clock, outbox, mailer, sender } = setUp();
    outbox.queue('ada@acme.example', clock.iso());
    const dueMail = outbox.dueMail;
    outbox.dueMail = () => Promise.reject(new Error('the database is away'));
    const failing = sender.drain();
    outbox.dueMail = dueMail;
    const next = sender.drain();
    await expect(failing).rejects.toThrow('the database is away');
    expect(await next).toBe(1);
    expect(mailer.sent).toHaveLength(1);
  });
});

describe('nudge', () => {
  it('when nudged many times at once, then it returns before reading anything, and one drain sends the mail', async () => {
    const { clock, outbox, mailer, sender } = setUp();
    outbox.queue('ada@acme.example', clock.iso());
    for (let index = 0; index < 5; index++) sender.nudge();
    expect(outbox.calls.dueMail).toBe(0);
    await vi.waitFor(() => expect(mailer.sent).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(outbox.calls.dueMail).toBe(1);
  });

  it('when nudged while a drain runs, then one more drain follows it and sends what was queued meanwhile', async () => {
    const { clock, outbox, mailer, sender } = setUp();
    outbox.queue('ada@acme.example', clock.iso());
    const held = gate();
    mailer.gate = held.promise;
    sender.nudge();
    await vi.waitFor(() => expect(outbox.calls.claimMail).toBe(1));
    outbox.queue('grace@acme.example', clock.iso());
    sender.nudge();
    sender.nudge();
    await new Promise((resolve) => setTimeout(resolve, 5));
    held.open();
    await vi.waitFor(() => expect(mailer.sent).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(outbox.calls.dueMail).toBe(2);
  });

  it('when a drain took a whole batch, then another follows until none is due', async () => {
    const { clock, outbox, mailer, sender } = setUp({ batch: 2 });
    for (let index = 0; index < 5; index++) outbox.queue(`p${index}@acme.example`, clock.iso());
    sender.nudge();
    await vi.waitFor(() => expect(mailer.sent).toHaveLength(5));
    await new Promise((resolve) => setTimeout(resolve, 10));
    // 2 + 2 + 1: the third batch was not full, so no fourth drain.
    expect(outbox.calls.dueMail).toBe(3);
  });

  it('when the store fails, then nudge does not throw, and the failure is logged as an error', async () => {
    const { outbox, sender, lines } = setUp();
    outbox.dueMail = () => Promise.reject(new Error('the database is away'));
    expect(() => sender.nudge()).not.toThrow();
    await vi.waitFor(() =>
      expect(lines).toEqual([
        expect.objectContaining({
          level: 50,
          msg: 'mail sender: a drain failed; the next one tries again',
          err: expect.objectContaining({ message: 'the database is away' }),
        }),
      ]),
    );
  });
});

describe('stop', () => {
  it('when stopped during a send, then it waits for that send, takes no further message, and later nudges do nothing', async () => {
    const { clock, outbox, mailer, sender } = setUp();
    outbox.queue('ada@acme.example', clock.iso());
    outbox.queue('grace@acme.example', clock.iso());
    const held = gate();
    mailer.gate = held.promise;
    const drained = sender.drain();
    await vi.waitFor(() => expect(outbox.calls.claimMail).toBe(1));
    let stopped = false;
    const stopping = sender.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(stopped).toBe(false);
    held.open();
    await stopping;
    expect(await drained).toBe(1);
    expect(mailer.sent.map((message) => message.to)).toEqual(['ada@acme.example']);
    sender.nudge();
    expect(await sender.drain()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(outbox.calls.dueMail).toBe(1);
  });

  it('when stopped with a nudge pending, then that drain never runs and no timer of it is left', async () => {
    const { clock, outbox, sender } = setUp();
    outbox.queue('ada@acme.example', clock.iso());
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const before = timers();
    sender.nudge();
    expect(timers()).toBe(before + 1);
    await sender.stop();
    expect(timers()).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(outbox.calls.dueMail).toBe(0);
  });
});

describe('polling', () => {
  it('when a poll interval is set, then a retry that comes due is sent with nobody nudging, until stopped', async () => {
    const clock = fakeClock();
    const outbox = memoryOutbox();
    const mailer = recordingMailer();
    const sender = mailSender(outbox, mailer, { now: clock.now, log: recordedLog().log, pollIntervalMs: 5 });
    outbox.queue('ada@acme.example', clock.iso(60_000));
    await vi.waitFor(() => expect(outbox.calls.dueMail).toBeGreaterThan(1));
    expect(mailer.sent).toEqual([]);
    clock.advance(60_000);
    await vi.waitFor(() => expect(mailer.sent).toHaveLength(1));
    await sender.stop();
    const polls = outbox.calls.dueMail;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(outbox.calls.dueMail).toBe(polls);
  });
});

describe('the retry delays', () => {
  it('when attempts go on, then each wait doubles from a minute and stops at an hour', () => {
    expect([1, 2, 3, 7, 8, 12, 40].map(mailRetryDelayMs)).toEqual([60_000, 120_000, 240_000, 3_600_000, 3_600_000, 3_600_000, 3_600_000]);
    expect(mailRetryDelayMs(6)).toBe(32 * 60_000);
  });
});

describe('through a real SMTP server', () => {
  const smtp = useSmtpServer();

  it('when a queued message is nudged out, then the server receives it with its link', async () => {
    const clock = fakeClock();
    const outbox = memoryOutbox();
    const sender = mailSender(outbox, smtpMailer(smtp.url, 'no-reply@forms.acme.example'), { now: clock.now, log: recordedLog().log });
    outbox.queue('ada@acme.example', clock.iso());
    sender.nudge();
    const received = await smtp.waitForMessage((message) => message.envelope.to.includes('ada@acme.example'));
    expect(linksIn(received)).toEqual(['https://forms.example/sign-in/link?token=ada@acme.example']);
    await vi.waitFor(() => expect(outbox.rows.get('mail_0000')?.sentAt).toBe(clock.iso()));
    await sender.stop();
  });
});
