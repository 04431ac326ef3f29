/**
 * What this browser keeps of a respondent's progress on one form (localStorage), so that a reload resumes where they
 * were: the answers, the steps shown, the submission and its resume token, and a send whose answer may have been lost.
 */
import type { PublicForm } from './form-rules.js';

/** A send that may have reached the server without its answer reaching the page: retried as it was, with its key. */
export interface PendingSend {
  key: string;
  method: 'POST' | 'PATCH';
  path: string;
  body: Record<string, unknown>;
  /** The answers and status it sends, to tell whether a later send still wants the same. */
  intent: string;
}

export interface Progress {
  /** The form version the answers and steps were taken on: another version's steps may not exist. */
  version: number;
  id?: string;
  resumeToken?: string;
  /** When the server stops accepting the resume token: the answers (personal data) are not kept past it. */
  expiresAt?: string;
  answers: Record<string, unknown>;
  /** Positions of the steps shown so far; the last is the current one. */
  history: number[];
  pending?: PendingSend;
}

const storageKey = (formId: string) => `form-funnel:${formId}`;

/** Progress with no submission yet (a first send unanswered) is kept as long as its Idempotency-Key replays: a day. */
export const unconfirmedLifetimeMs = 24 * 60 * 60 * 1000;

function usable(saved: Progress | null, form: PublicForm): saved is Progress {
  return (
    saved !== null &&
    saved.version === form.version &&
    typeof saved.expiresAt === 'string' &&
    Date.parse(saved.expiresAt) > Date.now() &&
    Array.isArray(saved.history) &&
    saved.history.length > 0 &&
    saved.history.every((index) => Number.isInteger(index) && index >= 0 && index < form.steps.length) &&
    typeof saved.answers === 'object' &&
    saved.answers !== null
  );
}

/** The saved progress on `form`, if there is one to resume; otherwise a fresh start at the first step. */
export function loadProgress(form: PublicForm): { progress: Progress; resumed: boolean } {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey(form.id)) ?? 'null') as Progress | null;
    if (usable(saved, form)) return { progress: saved, resumed: true };
    // Another version of the form, expired, or unreadable: the answers go, and the respondent starts afresh.
    if (saved !== null) localStorage.removeItem(storageKey(form.id));
  } catch {
    // Storage unavailable or unreadable: start afresh.
  }
  return { progress: { version: form.version, answers: {}, history: [0] }, resumed: false };
}

/** Keeps `progress`, or forgets it (null) once the submission is completed. */
export function saveProgress(formId: string, progress: Progress | null): void {
  try {
    if (progress === null) localStorage.removeItem(storageKey(formId));
    else localStorage.setItem(storageKey(formId), JSON.stringify(progress));
  } catch {
    // Without storage the page still works; only a reload loses the place.
  }
}
