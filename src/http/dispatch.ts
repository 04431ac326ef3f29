/**
 * Calls the operation's handler and sends its result, adding `request_id` to the body. POSTs (and operations that
 * declare the header) with an `Idempotency-Key` are claimed first: a repeat of the same request replays the stored response, another
 * request under the same key is a conflict. Responses are stored only once the handler has decided them
 * (success or a 4xx of its own); a 5xx releases the key so the client's retry can run again.
 *
 * A response that reports a change is stored in the change's own transaction, not after it: otherwise a crash
 * between the two would leave the change made and the key unanswered, and the retry would make it again. The
 * response is known there because handlers run such use cases through `replayable(useCase, respond)`: the use
 * case hands what it returns to `services.idempotentResponse`, which the change's outbox calls inside the
 * transaction, and which seals `respond(returned)` for this key. Whatever the handler answers without a change
 * (a 4xx, a no-op) is stored afterwards; `complete` and `release` leave a key the change already answered alone.
 */
import { createHmac } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { defaultConcurrency } from '../domain/concurrency-slots.js';
import { AppError, conflict } from '../domain/errors.js';
import type { Services } from '../domain/services.js';
import { isStoreConflict } from '../store/errors.js';
import type { IdempotentResponse } from '../store/outbox.js';
import type { Operation } from './contract-document.js';
import type { HandlerInput, HandlerResult, Handlers, OperationId, StreamedResult } from './handlers/types.js';

/** A handler seen from the dispatcher, which only moves its result to the wire. */
type AnyResult = { status: number; body: unknown; headers?: Record<string, string> } | StreamedResult<number>;
type AnyHandler = (input: HandlerInput<OperationId>) => Promise<AnyResult>;

import { idempotencyTtlSeconds } from './documented-limits.js';
import { withRequestId } from './frozen-bodies.js';
import { holdsCurrentState } from './if-none-match.js';
import { stateOf } from './locals.js';
import { problemBody } from './problem.js';
import { idempotencyKeyHash, openResponse, type ReplayableResponse, sealResponse } from './sealed-response.js';

/**
 * Same method, path and JSON body (key order aside) make the same request. The digest is keyed with the
 * Idempotency-Key itself, which is stored only as a hash: a stored fingerprint cannot be matched against guessed
 * bodies (an erasure request's email address, say) by anyone who does not hold the key.
 */
export function fingerprint(req: Pick<Request, 'method' | 'path' | 'body'>, idempotencyKey: string): string {
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
  return createHmac('sha256', idempotencyKey)
    .update(`${req.method} ${req.path}\n${JSON.stringify(canonical(req.body ?? null))}`)
    .digest('hex');
}

type Outcome = ReplayableResponse;

function outcomeOf(result: AnyResult): Outcome {
  if ('stream' in result) throw new Error('A streamed response cannot be stored for an Idempotency-Key replay.');
  return { status: result.status, headers: result.headers ?? {}, body: result.body as Record<string, unknown> };
}

/**
 * The submission a successful response carries (a create, a resume or a rescore, in whatever representation): the
 * stored copy is linked to it so that erasing or deleting the submission clears the copy too. The document says
 * which property holds it (`submissionIdProperty`), so a new operation or representation that answers with a
 * submission is linked without a change here.
 */
function submissionCarriedBy(operation: Operation, outcome: Outcome): string | null {
  const property = operation.submissionIdProperty;
  if (property === null || outcome.status >= 300) return null;
  const id = outcome.body[property];
  return typeof id === 'string' ? id : null;
}

function send(res: Response, outcome: Outcome, requestId: string): void {
  res.status(outcome.status).set(outcome.headers);
  if (outcome.status >= 400) res.type('application/problem+json');
  res.json(withRequestId(outcome.body, requestId));
}

/**
 * Writes a streamed body as the client reads it: a chunk is written only once the previous one has drained, so
 * a slow client holds back the reading instead of filling memory. A failure after the first byte cannot become a
 * problem response any more: the connection is cut, so the client sees a broken download (and resumes it) rather
 * than one that looks complete. A client that stops reading is cut off too, once what was written has not drained
 * for `stallTimeoutMs` (the last chunk included): otherwise it would hold the stream, its socket buffers and the
 * export's slot for as long as it likes.
 */
async function streamed(res: Response, result: StreamedResult<number>, stallTimeoutMs: number): Promise<void> {
  res.status(result.status).set(result.headers ?? {});
  res.type(result.stream.contentType);
  const iterator = result.stream.chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      if (res.destroyed) return;
      if (!res.write(next.value)) await drainedOrClosed(res, 'drain', stallTimeoutMs);
      if (res.destroyed) return;
    }
    res.end();
    // 'finish': everything was handed to the connection; until then the data waits in this process's memory.
    if (!res.writableFinished) await drainedOrClosed(res, 'finish', stallTimeoutMs);
  } catch (error) {
    // The error handler still logs it; with the headers sent it writes nothing.
    if (res.headersSent) res.destroy();
    throw error;
  } finally {
    // A client that went away ends the reading too.
    await iterator.return?.();
  }
}

/** Waits for `event` or the connection's end; after `stallTimeoutMs` without either, cuts the connection. */
const drainedOrClosed = (res: Response, event: 'drain' | 'finish', stallTimeoutMs: number) =>
  new Promise<void>((resolve) => {
    const stalled = setTimeout(() => {
      res.destroy();
      done();
    }, stallTimeoutMs);
    const done = () => {
      clearTimeout(stalled);
      res.off(event, done);
      res.off('close', done);
      resolve();
    };
    res.on(event, done);
    res.on('close', done);
  });

/** The validator has checked the values against their schemas; the document says which are integers. */
function coercedPathParams(operation: Operation, raw: Record<string, string>): Record<string, string | number> {
  return Object.fromEntries(
    Object.entries(raw).map(([name, value]) => [name, operation.integerPathParams.has(name) ? Number(value) : value]),
  );
}

/**
 * What the handler is called with. `seal`: how this request's response is stored for replay, when it holds a claimed
 * Idempotency-Key. Methods and a returned function rather than named closures: under tsx, whose transform passes
 * each named closure through an `Object.defineProperty` when it is created, that cost showed per request (npm start
 * now runs tsc's output, which has no such call).
 */
function handlerInput(
  req: Request,
  res: Response,
  services: Services,
  seal?: (outcome: Outcome) => IdempotentResponse,
): HandlerInput<OperationId> {
  const state = stateOf(res);
  return {
    params: coercedPathParams(state.operation!, state.pathParams ?? {}) as never,
    query: req.query as never,
    body: req.body as never,
    principal: state.principal!,
    requestId: state.requestId,
    clientIp: state.clientIp,
    accepts(types) {
      return req.accepts([...types]);
    },
    header(name) {
      return req.get(name);
    },
    services,
    replayable: replayableWith(services, seal) as HandlerInput<OperationId>['replayable'],
  };
}

function replayableWith(services: Services, seal?: (outcome: Outcome) => IdempotentResponse) {
  return async <R>(useCase: (services: Services) => Promise<R>, respond: (result: R) => HandlerResult<OperationId>) => {
    const scoped: Services = seal
      ? {
          ...services,
          idempotentResponse(returned) {
            return seal(outcomeOf(respond(returned as R)));
          },
        }
      : services;
    return respond(await useCase(scoped));
  };
}

export function dispatch(handlers: Handlers, services: Services): RequestHandler {
  return async (req, res) => {
    const state = stateOf(res);
    const operation = state.operation!;
    const handler = handlers[operation.operationId] as unknown as AnyHandler;

    const idempotencyKey = operation.acceptsIdempotencyKey ? req.get('idempotency-key') : undefined;
    if (idempotencyKey === undefined || !state.principal) {
      const result = await handler(handlerInput(req, res, services));
      if ('stream' in result) {
        return streamed(res, result, services.concurrency?.streamStallTimeoutMs ?? defaultConcurrency.streamStallTimeoutMs);
      }
      const outcome = outcomeOf(result);
      // A read whose state the client already holds (`If-None-Match` names its current ETag): no body.
      if (req.method === 'GET' && outcome.status === 200 && holdsCurrentState(req.get('if-none-match'), outcome.headers.ETag)) {
        res.status(304).set(outcome.headers).end();
        return;
      }
      return send(res, outcome, state.requestId);
    }

    const { idempotency } = services.store;
    const owner = state.principal.credentialId;
    const keyHash = idempotencyKeyHash(owner, idempotencyKey);
    const sealed = (outcome: Outcome): IdempotentResponse => ({
      ownerId: owner,
      keyHash,
      sealedResponse: sealResponse(owner, idempotencyKey, outcome),
      submissionId: submissionCarriedBy(operation, outcome),
    });
    const claim = await idempotency.claim(
      owner,
      keyHash,
      fingerprint(req, idempotencyKey),
      services.now().toISOString(),
      idempotencyTtlSeconds,
    );
    const inProgress = () => conflict('idempotency_conflict', 'A request with this Idempotency-Key is still in progress; retry later.');
    if (claim.outcome === 'conflict') {
      if (claim.reason === 'erased') {
        throw conflict(
          'idempotency_key_erased',
          "The submission in this request's response was erased or deleted: the response is gone and the request is not made again.",
        );
      }
      throw claim.reason === 'in_progress'
        ? inProgress()
        : conflict('idempotency_conflict', 'This Idempotency-Key was already used with a different request.');
    }
    if (claim.outcome === 'replay') {
      res.setHeader('Idempotent-Replayed', 'true');
      return send(res, openResponse(owner, idempotencyKey, claim.sealedResponse), state.requestId);
    }
    let outcome: Outcome;
    try {
      outcome = outcomeOf(await handler(handlerInput(req, res, services, sealed)));
    } catch (error) {
      // This request was taken for abandoned and another one now answers the key: its change was not made, and the
      // key is not this request's to release.
      if (isStoreConflict(error, 'idempotency_claim_lost')) throw inProgress();
      if (!(error instanceof AppError) || error.status >= 500) {
        await idempotency.release(owner, keyHash);
        throw error;
      }
      const body = problemBody(error, state.requestId);
      await idempotency.complete(sealed({ status: error.status, headers: {}, body }));
      throw error;
    }
    await idempotency.complete(sealed(outcome));
    send(res, outcome, state.requestId);
  };
}
