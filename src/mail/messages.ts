/**
 * The messages the service sends: each a plain-text part, where the link stands on a line of its own (mail clients
 * make it clickable, and a person can copy it whole), and a simple HTML part with the same words.
 *
 * Names come from people (a workspace's name, an inviter's) and go into both parts: the HTML escapes them, and both
 * parts keep them on one line, so that no name can add a line that looks like the message's own link.
 */
import type { Schema } from '../contract.js';
import type { MailMessage } from './mailer.js';

const product = 'Form-Funnel';

const roleWords: Record<Schema<'MemberRole'>, string> = { admin: 'an admin', editor: 'an editor', viewer: 'a viewer' };

/** Line breaks and other control characters become one space: a name stays on its line. */
function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes.
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}

const htmlEntities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => htmlEntities[character]!);
}

/** `at` (ISO) in words, in UTC: "13 December 2026 at 10:05 UTC". */
function inWords(at: string): string {
  const format = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
  return `${format.format(new Date(at))} UTC`;
}

/** Paragraphs of plain text (already one line each, names made safe) as the two parts, around the link's line. */
function message(to: string, subject: string, parts: { before: string[]; action: string; url: string; after: string[] }): MailMessage {
  const text = [...parts.before, `${parts.action}:`, parts.url, ...parts.after].join('\n\n');
  const paragraphs = (lines: string[]) => lines.map((line) => `<p>${escapeHtml(line)}</p>`);
  const url = escapeHtml(parts.url);
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${escapeHtml(subject)}</title></head>`,
    '<body>',
    ...paragraphs(parts.before),
    `<p><a href="${url}">${escapeHtml(parts.action)}</a></p>`,
    `<p>If the link does not open, copy this address into your browser:<br>${url}</p>`,
    ...paragraphs(parts.after),
    '</body>',
    '</html>',
  ].join('\n');
  return { to, subject, text: `${text}\n`, html: `${html}\n` };
}

export interface InvitationDetails {
  to: string;
  workspaceName: string;
  role: Schema<'MemberRole'>;
  /** Who invited them as the email names them (a member's name or email, a key's name); null: nobody named. */
  inviter: string | null;
  url: string;
  /** The invite's `expires_at`: the link works until then. */
  expiresAt: string;
}

export function invitationMessage(details: InvitationDetails): MailMessage {
  const workspace = oneLine(details.workspaceName);
  const invited = details.inviter === null ? 'You are invited' : `${oneLine(details.inviter)} has invited you`;
  return message(details.to, `You're invited to join ${workspace} on ${product}`, {
    before: [`${invited} to join ${workspace} on ${product} as ${roleWords[details.role]}.`],
    action: 'Accept the invitation',
    url: details.url,
    after: [
      `The link works once, until ${inWords(details.expiresAt)}.`,
      'If you did not expect this invitation, you can ignore this email.',
    ],
  });
}

export interface SignInDetails {
  to: string;
  url: string;
  expiresInMinutes: number;
}

export function signInMessage(details: SignInDetails): MailMessage {
  return message(details.to, `Your ${product} sign-in link`, {
    before: [`Someone asked to sign in to ${product} as ${oneLine(details.to)}.`],
    action: 'Sign in',
    url: details.url,
    after: [
      `The link works once, for ${details.expiresInMinutes} minutes.`,
      'If you did not ask to sign in, you can ignore this email: nobody can sign in without the link.',
    ],
  });
}
