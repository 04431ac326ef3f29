/**
 * The rules of a form's `spam_protection` that need no store: what its honeypot caught and whether a respondent
 * took long enough. The public submission path applies them (src/domain/public/spam-check.ts).
 */
import type { Schema } from '../../contract.js';
import { noSpamProtection } from '../../store/rows/forms.js';

export type SpamProtection = Schema<'SpamProtection'>;

/** The settings as stored: every member present, the defaults where an input (or an older form) left one out. */
export const spamProtectionOf = (input: Partial<SpamProtection> | undefined): SpamProtection => ({ ...noSpamProtection, ...input });

/** Whether a honeypot answer holds anything: people never see the field, so any value at all was typed by a bot. */
export function honeypotFilled(value: Schema<'AnswerValue'> | undefined): boolean {
  if (value === undefined || value === false) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

/**
 * How much sooner than the form allows a respondent submitted, in whole seconds; 0 when they took long enough.
 * `startedAt` is the verified `started_token`'s time, undefined when there was none or it did not verify.
 */
export function completionShortfall(
  minSeconds: number,
  startedAt: Date | undefined,
  now: Date,
): { tookSeconds: number | null; shortBy: number } {
  if (startedAt === undefined) return { tookSeconds: null, shortBy: minSeconds };
  const tookMs = now.getTime() - startedAt.getTime();
  const tookSeconds = Math.max(0, Math.floor(tookMs / 1000));
  return { tookSeconds, shortBy: tookMs >= minSeconds * 1000 ? 0 : minSeconds - tookSeconds };
}

/** Spam protection that names a field of the form as its honeypot would discard every real answer to that field. */
export function checkHoneypotField(spamProtection: SpamProtection, fieldRefs: ReadonlySet<string>): Schema<'ValidationIssue'>[] {
  const field = spamProtection.honeypot_field;
  if (field === null || !fieldRefs.has(field)) return [];
  return [
    {
      location: 'body',
      pointer: '/spam_protection/honeypot_field',
      code: 'honeypot_is_a_field',
      message: `${field} is a field of the form; choose a name no field has`,
    },
  ];
}
