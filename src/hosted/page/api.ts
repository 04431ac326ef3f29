/**
 * The public operations, called from the hosted page with the service's hosted-pages key. A problem answer becomes
 * an `ApiProblem` the page can show: its message, and its issues by field.
 */
import type { Schema } from '../../contract.js';

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: readonly Schema<'ValidationIssue'>[],
  ) {
    super(message);
  }
}

/** The service could not be reached (no network, or the connection failed before an answer). */
export class Unreachable extends Error {}

/** The proof of work could not be solved in this browser. */
export class SpamCheckFailed extends Error {}

/**
 * One call. `idempotencyKey` is the caller's: one per logical send, kept until that send has an answer, so that a
 * retry after a lost response replays it rather than making a second submission.
 */
export type Call = <T>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown, idempotencyKey?: string) => Promise<T>;

export function apiCaller(base: string, key: string): Call {
  return async <T>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown, idempotencyKey?: string): Promise<T> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
    const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }).catch(
      (cause: unknown) => {
        throw new Unreachable('The service could not be reached.', { cause });
      },
    );
    const data = await res.json().catch(() => ({}));
    if (!res.ok) {
      throw new ApiProblem(
        res.status,
        data.code ?? 'error',
        data.message ?? `The service answered ${res.status}.`,
        data.details?.errors ?? [],
      );
    }
    return data as T;
  };
}

/** A solved proof-of-work challenge, solved in a worker of this origin (pow-worker.ts). */
export async function solvedChallenge(call: Call, workerUrl: string): Promise<string> {
  const challenge = await call<Schema<'Challenge'>>('POST', '/public/challenges');
  let worker: Worker;
  try {
    worker = new Worker(workerUrl);
  } catch (cause) {
    throw new SpamCheckFailed('The spam check could not start in this browser.', { cause });
  }
  try {
    return await new Promise<string>((resolve, reject) => {
      worker.addEventListener('message', (event: MessageEvent<string>) => resolve(event.data));
      worker.addEventListener('error', () => reject(new SpamCheckFailed('The spam check could not run in this browser.')));
      worker.postMessage(challenge);
    });
  } finally {
    worker.terminate();
  }
}
