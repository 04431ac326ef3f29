/**
 * The API's issues about a list field (`/allowed_origins`, `/ip_allowlist`) typed one entry a line: each issue whose
 * pointer names an entry (`/allowed_origins/2`) is shown with that entry as it was sent, so the person sees which.
 */
import { issuesUnder } from './api.js';

export function listIssues(error: unknown, pointer: string, sent: string[]): string[] {
  return issuesUnder(error, pointer).map((issue) => {
    // An issue about the whole list (`/allowed_origins`: too many, repeated) names no entry.
    const index = issue.pointer === pointer ? undefined : Number(issue.pointer.slice(pointer.length + 1).split('/')[0]);
    const entry = index === undefined ? undefined : sent[index];
    return entry === undefined ? issue.message : `${entry}: ${issue.message}`;
  });
}

/** Entries as typed, one a line (spaces and commas also separate them). */
export const entriesOf = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);
