/**
 * Handler types derived from the generated contract types. One function per operationId; `Handlers` requires
 * all of them, so an operation added to the contract without a handler is a compile error, and so is a handler
 * that answers a status or body its operation does not declare.
 */
import type { ApiKey } from './auth.js';
import type { operations } from './generated/openapi.js';
import type { OpenOperation } from './generated/security.js';

/** Operations this server serves (the contract's webhooks are requests the service sends, not operations). */
export type OperationId = Exclude<keyof operations, `${string}Webhook`>;

type Op<K extends OperationId> = operations[K];

type BodyOf<RequestBody> = RequestBody extends { content: infer Content }
  ? Content extends { 'application/json': infer Json }
    ? Json
    : Content extends { 'application/x-www-form-urlencoded': infer Form }
      ? Form
      : // A file (a form's logo): the bytes sent; `header('content-type')` says which of its media types.
        Buffer
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

/** `request_id` is added to every body by the dispatcher, so handlers never set it. */
type WithoutRequestId<T> = T extends unknown ? Omit<T, 'request_id'> : never;

type JsonMediaType = 'application/json' | 'application/problem+json';

/** One declared response: a JSON body, a text body of its media type (`text/csv`), or no body. */
type AnswerOf<S, Response> = Response extends { content: infer Content }
  ? {
      [M in keyof Content]: M extends JsonMediaType
        ? { status: S; body: WithoutRequestId<Content[M]>; headers?: Record<string, string> }
        : { status: S; contentType: M; text: string; headers?: Record<string, string> };
    }[keyof Content]
  : { status: S; headers?: Record<string, string> };

/** What a handler that is not written yet answers: the dispatcher turns it into the 501 problem. */
export interface NotImplemented {
  readonly notImplemented: OperationId;
}

export type HandlerResult<K extends OperationId> = { [S in keyof Responses<K>]: AnswerOf<S, Responses<K>[S]> }[keyof Responses<K>];

export interface HandlerInput<K extends OperationId> {
  params: PathParams<K>;
  query: QueryParams<K>;
  body: RequestBody<K>;
  /** The caller, as `lookUpKey` in auth.ts found it; an operation anyone may call (`security: []`) may have none. */
  key: K extends OpenOperation ? ApiKey | undefined : ApiKey;
  requestId: string;
  /** A request header's value (header parameters the contract declares, such as `If-Match`, are validated). */
  header(name: string): string | undefined;
}

export type Handler<K extends OperationId> = (input: HandlerInput<K>) => Promise<HandlerResult<K> | NotImplemented>;

export type Handlers = { [K in OperationId]: Handler<K> };

export const notImplemented = <K extends OperationId>(operationId: K): NotImplemented => ({ notImplemented: operationId });
