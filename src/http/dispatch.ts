/**
 * Calls the operation's handler and sends its result, adding `request_id` to the body. POSTs with an
 * `Idempotency-Key` are claimed first: a repeat of the same request replays the stored response, another
 * request under the same key is a conflict. Responses are stored only once the handler has decided them
 * (success or a 4xx of its own); a 5xx releases the key so the client's retry can run again.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { AppError, conflict } from '../domain/errors.js';
import type { Services } from '../domain/services.js';
import type { Operation } from './contract-document.js';
import type { HandlerInput, Handlers, OperationId } from './handlers/types.js';

/** A handler seen from the dispatcher, which only moves its result to the wire. */
type AnyHandler = (input: HandlerInput<OperationId>) => Promise<{ status: number; body: unknown; headers?: Record<string, string> }>;

import { idempotencyTtlSeconds } from './documented-limits.js';
import { stateOf } from './locals.js';
import { problemBody } from './problem.js';
import { idempotencyKeyHash, openResponse, type ReplayableResponse, sealResponse } from './sealed-response.js';

/** Same method, path and JSON body (key order aside) make the same request. */
function fingerprint(req: Request): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
          )
        : value;
  return createHash('sha256')
    .update(`${req.method} ${req.path}\n${JSON.stringify(canonical(req.body ?? null))}`)
    .digest('hex');
}

type Outcome = ReplayableResponse;

function send(res: Response, outcome: Outcome, requestId: string): void {
  res.status(outcome.status).set(outcome.headers);
  if (outcome.status >= 400) res.type('application/problem+json');
  res.json({ ...outcome.body, request_id: requestId });
}

/** The validator has checked the values against their schemas; the document says which are integers. */
function coercedPathParams(operation: Operation, raw: Record<string, string>): Record<string, string | number> {
  return Object.fromEntries(
    Object.entries(raw).map(([name, value]) => [name, operation.integerPathParams.has(name) ? Number(value) : value]),
  );
}

export function dispatch(handlers: Handlers, services: Services): RequestHandler {
  return async (req, res) => {
    const state = stateOf(res);
    const operation = state.operation!;
    const handler = handlers[operation.operationId] as unknown as AnyHandler;
    const run = async (): Promise<Outcome> => {
      const result = await handler({
        params: coercedPathParams(operation, state.pathParams ?? {}) as never,
        query: req.query as never,
        body: req.body as never,
        principal: state.principal!,
        requestId: state.requestId,
        clientIp: state.clientIp,
        services,
      });
      return { status: result.status, headers: result.headers ?? {}, body: result.body as Record<string, unknown> };
    };

    const idempotencyKey = operation.method === 'post' ? req.get('idempotency-key') : undefined;
    if (idempotencyKey === undefined || !state.principal) return send(res, await run(), state.requestId);

    const { idempotency } = services.store;
    const owner = state.principal.idempotencyOwner;
    const keyHash = idempotencyKeyHash(owner, idempotencyKey);
    const claim = await idempotency.claim(owner, keyHash, fingerprint(req), services.now().toISOString(), idempotencyTtlSeconds);
    if (claim.outcome === 'conflict') {
      throw conflict(
        'idempotency_conflict',
        claim.reason === 'in_progress'
          ? 'A request with this Idempotency-Key is still in progress; retry later.'
          : 'This Idempotency-Key was already used with a different request.',
      );
    }
    if (claim.outcome === 'replay') {
      res.setHeader('Idempotent-Replayed', 'true');
      return send(res, openResponse(owner, idempotencyKey, claim.sealedResponse), state.requestId);
    }
    let outcome: Outcome;
    try {
      outcome = await run();
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) {
        await idempotency.release(owner, keyHash);
        throw error;
      }
      const body = problemBody(error, state.requestId);
      await idempotency.complete(owner, keyHash, sealResponse(owner, idempotencyKey, { status: error.status, headers: {}, body }));
      throw error;
    }
    await idempotency.complete(owner, keyHash, sealResponse(owner, idempotencyKey, outcome));
    send(res, outcome, state.requestId);
  };
}
