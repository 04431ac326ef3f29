/**
 * A real SMTP server in the test process (smtp-server, on a port of its own, plain text with STARTTLS off), which
 * keeps every message it receives, and a small reader of the messages nodemailer writes: the headers, the subject
 * (RFC 2047 words decoded), and the text and HTML parts (quoted-printable or base64). Enough to read what a person
 * would read, and the links they would open; not a general MIME parser.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll } from 'vitest';

export interface ReceivedMessage {
  /** The message as the server received it (CRLF line ends). */
  raw: string;
  /** SMTP's envelope: MAIL FROM and every RCPT TO. */
  envelope: { from: string; to: string[] };
  /** The login the client gave, when it gave one. */
  login: { username: string; password: string } | null;
  /** Header fields by lower-case name, unfolded and decoded; a field given twice keeps its last value. */
  headers: Map<string, string>;
  subject: string;
  /** The addresses of the To header. */
  to: string[];
  /** The text/plain part, line ends as `\n`; '' when there is none. */
  text: string;
  /** The text/html part, line ends as `\n`; '' when there is none. */
  html: string;
}

export interface SmtpServerOptions {
  /** When given, every other login is refused (535), and so is a message sent without logging in. */
  credentials?: { username: string; password: string };
}

export interface TestSmtpServer {
  /** smtp://127.0.0.1:<port>, for SMTP_URL (add a user and password to log in). */
  url: string;
  port: number;
  /** Every message received so far, in order. */
  messages: ReceivedMessage[];
  /** The first message, received or still to come, that `predicate` accepts; rejects after `timeoutMs`. */
  waitForMessage(predicate?: (message: ReceivedMessage) => boolean, timeoutMs?: number): Promise<ReceivedMessage>;
  close(): Promise<void>;
}

type Header = Map<string, string>;

/** `=?utf-8?Q?…?=` and `=?utf-8?B?…?=` words, as nodemailer encodes a header with non-ASCII text. */
function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_word, charset: string, encoding: string, data: string) => {
      const bytes =
        encoding.toUpperCase() === 'B'
          ? Buffer.from(data, 'base64')
          : Buffer.from(
              data.replaceAll('_', ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
              'latin1',
            );
      return new TextDecoder(charset).decode(bytes);
    });
}

/** The header block (unfolded) and the body of an entity. */
function splitEntity(entity: string): { headers: Header; body: string } {
  const end = entity.indexOf('\r\n\r\n');
  const head = end === -1 ? entity : entity.slice(0, end);
  const body = end === -1 ? '' : entity.slice(end + 4);
  const headers: Header = new Map();
  for (const line of head.replace(/\r\n(?=[ \t])/g, '').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim()));
  }
  return { headers, body };
}

/** A parameter of a structured header (`boundary`, `charset`), quoted or not. */
function parameter(value: string | undefined, name: string): string | undefined {
  const match = value?.match(new RegExp(`;\\s*${name}=(?:"([^"]*)"|([^;\\s]+))`, 'i'));
  return match ? (match[1] ?? match[2]) : undefined;
}

function decodeBody(headers: Header, body: string): string {
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const charset = parameter(headers.get('content-type'), 'charset') ?? 'utf-8';
  let bytes: Buffer;
  if (encoding === 'base64') bytes = Buffer.from(body.replace(/\s+/g, ''), 'base64');
  else if (encoding === 'quoted-printable') {
    const unwrapped = body.replace(/=\r\n/g, '');
    const octets: number[] = [];
    for (let index = 0; index < unwrapped.length; index++) {
      const hex = unwrapped.slice(index + 1, index + 3);
      if (unwrapped[index] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
        octets.push(parseInt(hex, 16));
        index += 2;
      } else octets.push(unwrapped.charCodeAt(index));
    }
    bytes = Buffer.from(octets);
  } else bytes = Buffer.from(body, 'utf8');
  return new TextDecoder(charset).decode(bytes).replace(/\r\n/g, '\n');
}

/** The leaf parts of an entity, in order, each with its decoded body. */
function leafParts(entity: string): Array<{ type: string; content: string }> {
  const { headers, body } = splitEntity(entity);
  const contentType = headers.get('content-type') ?? 'text/plain';
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (!type.startsWith('multipart/')) return [{ type, content: decodeBody(headers, body) }];
  const boundary = parameter(contentType, 'boundary');
  if (!boundary) throw new Error(`a ${type} entity without a boundary`);
  const sections = body.split(`--${boundary}`);
  // Before the first boundary is the preamble; from the closing one (`--boundary--`) on, the epilogue.
  return sections
    .slice(1)
    .filter((section) => !section.startsWith('--'))
    .flatMap((section) => leafParts(section.replace(/^\r\n/, '').replace(/\r\n$/, '')));
}

/** Reads a message as nodemailer writes it (also an `.eml` file's content). */
export function parseMessage(raw: string, envelope: ReceivedMessage['envelope'] = { from: '', to: [] }): ReceivedMessage {
  const { headers } = splitEntity(raw);
  const parts = leafParts(raw);
  const text = parts.find((part) => part.type === 'text/plain')?.content ?? '';
  const html = parts.find((part) => part.type === 'text/html')?.content ?? '';
  const to = [...(headers.get('to') ?? '').matchAll(/[^\s<>,"]+@[^\s<>,"]+/g)].map((match) => match[0]);
  return { raw, envelope, login: null, headers, subject: headers.get('subject') ?? '', to, text, html };
}

/** The https links in the message's text part: what a person would open. */
export function linksIn(message: Pick<ReceivedMessage, 'text'>): string[] {
  return message.text.match(/https:\/\/\S+/g) ?? [];
}

export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const messages: ReceivedMessage[] = [];
  const waiting = new Set<(message: ReceivedMessage) => void>();
  const logins = new Map<string, { username: string; password: string }>();
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    // A login over plain text is what a test's loopback connection allows; the server a deployment uses has TLS.
    allowInsecureAuth: true,
    authOptional: options.credentials === undefined,
    logger: false,
    onAuth(auth, session, callback) {
      const login = { username: auth.username ?? '', password: auth.password ?? '' };
      const expected = options.credentials;
      if (expected && (login.username !== expected.username || login.password !== expected.password)) {
        callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
        return;
      }
      logins.set(session.id, login);
      callback(null, { user: login.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
        };
        const message = { ...parseMessage(Buffer.concat(chunks).toString('utf8'), envelope), login: logins.get(session.id) ?? null };
        messages.push(message);
        for (const notify of waiting) notify(message);
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    waitForMessage(predicate = () => true, timeoutMs = 5_000) {
      const received = messages.find(predicate);
      if (received) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(notify);
          reject(new Error(`no matching message within ${timeoutMs} ms (${messages.length} received)`));
        }, timeoutMs);
        const notify = (message: ReceivedMessage) => {
          if (!predicate(message)) return;
          clearTimeout(timer);
          waiting.delete(notify);
          resolve(message);
        };
        waiting.add(notify);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The SMTP server of a test file: started before the file's tests, closed after them. Use it inside tests and
 * hooks (`smtp.url` for SMTP_URL, `await smtp.waitForMessage(…)`); `smtp.messages` grows over the whole file.
 */
export function useSmtpServer(options: SmtpServerOptions = {}): TestSmtpServer {
  let started: TestSmtpServer | undefined;
  beforeAll(async () => {
    started = await startSmtpServer(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as TestSmtpServer, {
    get(_target, property) {
      if (!started) throw new Error('The SMTP server starts in beforeAll: use it inside tests and hooks, not while the file loads.');
      return Reflect.get(started, property);
    },
  });
}
