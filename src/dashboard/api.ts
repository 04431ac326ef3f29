/**
 * The dashboard's only way to the service: the typed client partners use (src/client/), over `/v1` on this origin,
 * with the session's current access token. Nothing here knows a route the contract does not list.
 *
 * Retries: the client's own (a 5xx, a dropped connection, a 429 whose `Retry-After` is short); a longer wait is shown
 * to the person (ProblemNotice) rather than spent behind a spinner.
 */
import { createFormFunnelClient, type FormFunnelClient } from '../client/create-form-funnel-client.js';
import { FormFunnelError } from '../client/form-funnel-error.js';
import type { Schema } from '../client/schemas.js';
import type { DashboardSession } from './auth.js';

export type Api = FormFunnelClient;

export function createDashboardApi(baseUrl: string, session: DashboardSession, onUnauthorized: () => void): Api {
  const api = createFormFunnelClient({
    apiKey: () => session.token(),
    baseUrl,
    maxRetries: 2,
    maxRetryAfterSeconds: 3,
  });
  api.use({
    onResponse({ response }) {
      // The grant was revoked (the member removed, signed out elsewhere): start again from the consent page.
      if (response.status === 401) onUnauthorized();
      return undefined;
    },
  });
  return api;
}

export { unwrap } from '../client/unwrap.js';
export { FormFunnelError };

/** The error as something a screen can show: a FormFunnelError from the API, or any other failure. */
export const asProblem = (error: unknown): FormFunnelError | Error => (error instanceof Error ? error : new Error(String(error)));

/** One of the API's `details.errors` (a `validation_error`'s): a JSON pointer and what is wrong there. */
export type ValidationIssue = Schema<'ValidationIssue'>;

/** The API's `details.errors` whose JSON pointer is `pointer` or lies under it. */
export function issuesUnder(error: unknown, pointer: string): ValidationIssue[] {
  if (!(error instanceof FormFunnelError)) return [];
  return (error.details?.errors ?? []).filter((issue) => issue.pointer === pointer || issue.pointer.startsWith(`${pointer}/`));
}

/** The messages of the issues at or under `pointer` (for a field's messages). */
export const issuesAt = (error: unknown, pointer: string): string[] => issuesUnder(error, pointer).map((issue) => issue.message);
