import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileMailer, httpsLinks, mailerFromConfig, smtpMailer } from '../../src/mail/mailer.js';
import { invitationMessage, signInMessage } from '../../src/mail/messages.js';
import { linksIn, parseMessage, startSmtpServer, useSmtpServer } from '../support/smtp.js';
import { recordedLog } from './recorded-log.js';

const from = 'Form-Funnel <no-reply@forms.acme.example>';
const signInUrl = 'https://forms.acme.example/sign-in/link?token=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCd';
const signIn = (to: string) => signInMessage({ to, url: signInUrl, expiresInMinutes: 15 });
const invitation = (to: string, workspaceName: string) =>
  invitationMessage({
    to,
    workspaceName,
    role: 'editor',
    inviter: 'Ada Lovelace',
    url: `https://forms.acme.example/invites/accept?token=${'x'.repeat(43)}`,
    expiresAt: '2026-12-13T10:05:00.000Z',
  });

const scratch = mkdtempSync(join(tmpdir(), 'form-funnel-mail-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
const newDir = () => join(scratch, `data-${++dirs}`, 'mail');
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('the SMTP mailer', () => {
  const smtp = useSmtpServer();

  it('when a sign-in message is sent, then the server receives it for that address, with its subject, sender and link', async () => {
    await smtpMailer(smtp.url, from).send(signIn('ada@acme.example'));
    const received = await smtp.waitForMessage((message) => message.envelope.to.includes('ada@acme.example'));
    expect(received.envelope).toEqual({ from: 'no-reply@forms.acme.example', to: ['ada@acme.example'] });
    expect(received.to).toEqual(['ada@acme.example']);
    expect(received.headers.get('from')).toBe('"Form-Funnel" <no-reply@forms.acme.example>');
    expect(received.subject).toBe('Your Form-Funnel sign-in link');
    expect(linksIn(received)).toEqual([signInUrl]);
    expect(received.text.split('\n')).toContain(signInUrl);
    expect(received.html).toContain(`<a href="${signInUrl}">Sign in</a>`);
    expect(received.login).toBeNull();
  });

  // Mostly ASCII: nodemailer writes the text part quoted-printable; mostly not: base64. Either way it reads the same.
  it.each([
    ['zoe@acme.example', 'quoted-printable', `Café Zoë — ${'très '.repeat(20).trim()}`],
    ['kana@acme.example', 'base64', '日本語のワークスペース、とても長い名前です'.repeat(12)],
  ])('when the workspace name is not ASCII (%s, %s), then the subject and text arrive as written', async (to, encoding, name) => {
    await smtpMailer(smtp.url, from).send(invitation(to, name));
    const received = await smtp.waitForMessage((message) => message.envelope.to.includes(to));
    expect(received.raw).toMatch(new RegExp(`Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: ${encoding}`, 'i'));
    expect(received.subject).toBe(`You're invited to join ${name} on Form-Funnel`);
    expect(received.text).toContain(`Ada Lovelace has invited you to join ${name} on Form-Funnel as an editor.`);
    expect(linksIn(received)).toEqual([`https://forms.acme.example/invites/accept?token=${'x'.repeat(43)}`]);
  });

  it('when the server is gone, then sending rejects (so that the sender tries again later)', async () => {
    const gone = await startSmtpServer();
    await gone.close();
    await expect(smtpMailer(gone.url, from).send(signIn('ada@acme.example'))).rejects.toThrow();
  });
});

describe('the SMTP mailer with a login', () => {
  const smtp = useSmtpServer({ credentials: { username: 'forms@acme.example', password: 'p@ss word/:1' } });
  const withLogin = (password: string) =>
    smtp.url.replace('smtp://', `smtp://${encodeURIComponent('forms@acme.example')}:${encodeURIComponent(password)}@`);

  it('when SMTP_URL carries a user and password, then the mailer logs in with them and the message is accepted', async () => {
    await smtpMailer(withLogin('p@ss word/:1'), from).send(signIn('grace@acme.example'));
    const received = await smtp.waitForMessage((message) => message.envelope.to.includes('grace@acme.example'));
    expect(received.login).toEqual({ username: 'forms@acme.example', password: 'p@ss word/:1' });
  });

  it('when the password is wrong, then sending rejects, and the error carries no password', async () => {
    const error: unknown = await smtpMailer(withLogin('wrong-hunter2'), from)
      .send(signIn('grace@acme.example'))
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expect(error).toBeInstanceOf(Error);
    const { log, text } = recordedLog();
    log.warn({ err: error }, 'mail not sent');
    expect(text()).toMatch(/Invalid username or password/);
    expect(text()).not.toContain('hunter2');
    expect(smtp.messages.filter((message) => message.envelope.to.includes('grace@acme.example'))).toHaveLength(1);
  });
});

describe('the file mailer', () => {
  it('when a message is sent, then a parseable .eml is written (600, in a new 700 directory) and its file and link are logged', async () => {
    const dir = newDir();
    const { log, lines } = recordedLog();
    await fileMailer(dir, from, log).send(signIn('ada@acme.example'));
    expect(modeOf(dir)).toBe(0o700);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-[0-9a-f]{8}\.eml$/);
    const file = join(dir, files[0]!);
    expect(modeOf(file)).toBe(0o600);
    const raw = readFileSync(file, 'utf8');
    // RFC 5322: lines end with CRLF.
    expect(raw.split('\r\n').length).toBeGreaterThan(10);
    expect(raw.replace(/\r\n/g, '')).not.toContain('\n');
    const message = parseMessage(raw);
    expect(message.headers.get('from')).toBe('"Form-Funnel" <no-reply@forms.acme.example>');
    expect(message.to).toEqual(['ada@acme.example']);
    expect(message.subject).toBe('Your Form-Funnel sign-in link');
    expect(linksIn(message)).toEqual([signInUrl]);
    expect(message.html).toContain(`<a href="${signInUrl}">Sign in</a>`);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        file,
        to: 'ada@acme.example',
        links: [signInUrl],
        msg: expect.stringContaining('ada@acme.example'),
      }),
    ]);
  });

  it('when several messages are written, then their files sort in the order they were sent', async () => {
    const dir = newDir();
    const mailer = fileMailer(dir, from, recordedLog().log);
    const recipients = ['a@acme.example', 'b@acme.example', 'c@acme.example', 'd@acme.example'];
    for (const to of recipients) {
      await mailer.send(signIn(to));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const files = readdirSync(dir).sort();
    expect(files.map((file) => parseMessage(readFileSync(join(dir, file), 'utf8')).to[0])).toEqual(recipients);
  });

  it('when the directory exists open to others, then it is left as it is, the operator is warned, and the file is still 600', async () => {
    const dir = newDir();
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    const { log, lines } = recordedLog();
    const mailer = fileMailer(dir, from, log);
    await mailer.send(signIn('ada@acme.example'));
    await mailer.send(signIn('ada@acme.example'));
    expect(modeOf(dir)).toBe(0o755);
    expect(lines.filter((line) => line.level === 40).map((line) => line.msg)).toEqual([
      expect.stringMatching(/open to other users.*chmod 700/),
    ]);
    expect(readdirSync(dir).map((file) => modeOf(join(dir, file)))).toEqual([0o600, 0o600]);
  });

  it('when the directory cannot be made, then sending rejects; once it can be, a later send writes the file', async () => {
    const parent = join(scratch, `blocked-${++dirs}`);
    writeFileSync(parent, 'a file where the data directory should be');
    const mailer = fileMailer(join(parent, 'mail'), from, recordedLog().log);
    await expect(mailer.send(signIn('ada@acme.example'))).rejects.toThrow(/ENOTDIR|EEXIST/);
    rmSync(parent);
    mkdirSync(parent);
    await mailer.send(signIn('ada@acme.example'));
    expect(readdirSync(join(parent, 'mail'))).toHaveLength(1);
  });
});

describe('the mailer the configuration chooses', () => {
  const smtp = useSmtpServer();

  it('when SMTP_URL is unset, then messages are files in DATA_DIR/mail', async () => {
    const dataDir = join(scratch, `data-${++dirs}`);
    const { log, lines } = recordedLog();
    await mailerFromConfig({ smtpUrl: null, mailFrom: from, dataDir }, log).send(signIn('ada@acme.example'));
    expect(readdirSync(join(dataDir, 'mail'))).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      dir: join(dataDir, 'mail'),
      msg: 'no SMTP_URL: each message is written to a file in this directory and its links logged',
    });
    expect(lines[1]).toMatchObject({ links: [signInUrl] });
  });

  it('when SMTP_URL is set with a password, then messages go to that server, and the log names its host only', async () => {
    const dataDir = join(scratch, `data-${++dirs}`);
    const { log, lines, text } = recordedLog();
    const url = smtp.url.replace('smtp://', 'smtp://mailer:hunter2@');
    await mailerFromConfig({ smtpUrl: url, mailFrom: from, dataDir }, log).send(signIn('smtp-chosen@acme.example'));
    await smtp.waitForMessage((message) => message.envelope.to.includes('smtp-chosen@acme.example'));
    expect(lines).toEqual([expect.objectContaining({ smtpHost: `127.0.0.1:${smtp.port}`, msg: 'mail goes out through SMTP' })]);
    expect(text()).not.toContain('hunter2');
    expect(text()).not.toContain('mailer');
  });
});

describe('the links of a text', () => {
  it('when a text holds https links among words and markup, then each is found whole; http and other schemes are not', () => {
    expect(httpsLinks('Open\nhttps://a.example/x?t=1&u=2\n<https://b.example/y>, "https://c.example" http://d.example mailto:e@x')).toEqual(
      ['https://a.example/x?t=1&u=2', 'https://b.example/y', 'https://c.example'],
    );
    expect(httpsLinks('no link here')).toEqual([]);
  });
});
