/**
 * Where mail goes: an SMTP server (SMTP_URL), or, without one, an `.eml` file per message under DATA_DIR/mail with
 * its links printed in the log, so that a server started with no configuration still lets a person sign in (the
 * operator opens the link from the log) and a colleague be invited (the operator forwards the file).
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { ensurePrivateDirectory, PRIVATE_FILE_MODE } from '../private-files.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  /** Resolves once the message is handed over (to the SMTP server, or to its file); rejects when it was not. */
  send(message: MailMessage): Promise<void>;
}

/**
 * Time limits of one SMTP delivery. A sender claims a message for at least its first retry delay (src/mail/sender.ts)
 * before sending it: a delivery must end, delivered or failed, well within that, or another sender could take the
 * message over while this one still talks to the server and both would send it.
 */
export const smtpTimeouts = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as const;

/** `url`: smtp://user:password@host:587 (STARTTLS when the server offers it) or smtps://…:465 (TLS from the start). */
export function smtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport({ url, ...smtpTimeouts }, { from });
  return {
    async send(message) {
      await transport.sendMail(message);
    },
  };
}

/** The https links in a text: what a message offers its reader to open. */
export function httpsLinks(text: string): string[] {
  return text.match(/https:\/\/[^\s<>"]+/g) ?? [];
}

/**
 * Writes each message as an RFC 5322 file (`<time>-<random>.eml`, in the order written) readable by this user only,
 * in a directory only this user may enter, and logs the file's name with the message's links: they are one-time
 * sign-in and invitation links, so the directory and the log are as private as the database.
 */
export function fileMailer(dir: string, from: string, log: Logger): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }, { from });
  let directoryReady = false;
  return {
    async send(message) {
      if (!directoryReady) {
        ensurePrivateDirectory(dir, (warning) => log.warn(warning));
        directoryReady = true;
      }
      const { message: eml } = await transport.sendMail(message);
      // ':' is not allowed in Windows file names, and an ISO time sorts as it reads. 'wx': a name already taken (the
      // same millisecond and 32 random bits) fails the send, to be tried again, rather than overwrite another message.
      const file = join(dir, `${new Date().toISOString().replaceAll(':', '-')}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(file, eml as Buffer, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
      log.info({ file, to: message.to, links: httpsLinks(message.text) }, `mail to ${message.to} written to a file (no SMTP_URL)`);
    },
  };
}

/** Only the host of SMTP_URL is logged: its user and password stay out of the log. */
export function mailerFromConfig(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>, log: Logger): Mailer {
  if (config.smtpUrl !== null) {
    log.info({ smtpHost: new URL(config.smtpUrl).host }, 'mail goes out through SMTP');
    return smtpMailer(config.smtpUrl, config.mailFrom);
  }
  const dir = join(config.dataDir, 'mail');
  log.info({ dir }, 'no SMTP_URL: each message is written to a file in this directory and its links logged');
  return fileMailer(dir, config.mailFrom, log);
}
