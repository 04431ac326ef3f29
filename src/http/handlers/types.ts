/**
 * Handler types derived from the generated contract. An implementer fills in one function per
 * operationId; `Handlers` requires all of them, so an operation added to the document without a handler
 * is a compile error, and a handler that returns a body the document does not describe is one too.
 */
import type { operations } from '../../../generated/openapi.js';
import type { Principal } from '../../domain/access.js';
import type { Services } from '../../domain/services.js';

/** Operations of the API (the document's webhooks are requests we send, not operations we serve). */
export type OperationId = Exclude<keyof operations, `${string}Webhook`>;

type Op<K extends OperationId> = operations[K];

/**
 * A body the document takes as bytes (an uploaded image): the media type it was sent in, one of those its
 * `requestBody` lists, and the bytes as sent (request-body.ts).
 */
export interface RawBody {
  mediaType: string;
  bytes: Buffer;
}

type BodyOf<RequestBody> = RequestBody extends { content: infer Content }
  ? Content extends { 'application/json': infer Json }
    ? Json
    : Content extends { 'application/x-www-form-urlencoded': infer Form }
      ? Form
      : RawBody
  : undefined;

export type RequestBody<K extends OperationId> =
  Op<K> extends { requestBody: infer RB }
    ? BodyOf<RB>
    : Op<K> extends { requestBody?: infer RB }
      ? BodyOf<NonNullable<RB>> | undefined
      : undefined;

type Parameters<K extends OperationId> = Op<K>['parameters'];
export type PathParams<K extends OperationId> = Parameters<K> extends { path: infer P } ? P : Record<string, never>;
export type QueryParams<K extends OperationId> = Parameters<K> extends { query?: infer Q } ? NonNullable<Q> : Record<string, never>;

type Responses<K extends OperationId> = Op<K>['responses'];
type SuccessStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202>;
type JsonOf<Response> = Response extends { content: { 'application/json': infer Json } } ? Json : never;

/** `request_id` is added to every body by the pipeline, so handlers never set it. */
type WithoutRequestId<T> = T extends unknown ? Omit<T, 'request_id'> : never;

/**
 * A success response the document describes without JSON (the export's CSV and NDJSON): the handler hands over
 * its text chunk by chunk and the dispatcher writes it as the client reads, never holding the whole body. Such a
 * body is not checked against the document (its schema is a plain string).
 */
export interface StreamedResult<S> {
  status: S;
  stream: { contentType: string; chunks: AsyncIterable<string> };
  headers?: Record<string, string>;
}

export type HandlerResult<K extends OperationId> = {
  [S in SuccessStatus<K>]: [JsonOf<Responses<K>[S]>] extends [never]
    ? StreamedResult<S>
    : { status: S; body: WithoutRequestId<JsonOf<Responses<K>[S]>>; headers?: Record<string, string> };
}[SuccessStatus<K>];

export interface HandlerInput<K extends OperationId> {
  params: PathParams<K>;
  query: QueryParams<K>;
  body: RequestBody<K>;
  /** The authenticated caller; absent only for operations with `security: []`. */
  principal: Principal;
  requestId: string;
  clientIp: string;
  /** The one of `types` the `Accept` header prefers (the first when it accepts anything), or false for none. */
  accepts(types: readonly string[]): string | false;
  /** A request header's value (header parameters the document declares, such as `If-Match`, are validated). */
  header(name: string): string | undefined;
  services: Services;
  /**
   * Runs a use case that changes something and answers `respond(result)`. With an Idempotency-Key, the response
   * is also sealed for replay inside the change's transaction (see dispatch.ts), so `respond` only builds it.
   */
  replayable<R>(useCase: (services: Services) => Promise<R>, respond: (result: R) => HandlerResult<K>): Promise<HandlerResult<K>>;
}

export type Handler<K extends OperationId> = (input: HandlerInput<K>) => Promise<HandlerResult<K>>;

export type Handlers = { [K in OperationId]: Handler<K> };
