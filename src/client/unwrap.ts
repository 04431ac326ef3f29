import { FormFunnelError } from './form-funnel-error.js';

/** The shape of every openapi-fetch result: `{ data, response }` or `{ error, response }`. */
export interface FetchResultLike {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The success branch's `data`; the error branch is dropped because unwrap throws it. */
export type UnwrappedData<Result> = Result extends { data: infer Data; error?: never } ? Data : never;

/**
 * `const form = unwrap(await client.GET('/forms/{id}', { params: { path: { id } } }))`
 * returns the typed body of a 2xx, or throws a FormFunnelError for anything else.
 */
export function unwrap<Result extends FetchResultLike>(result: Result): UnwrappedData<Result> {
  if (!result.response.ok) throw FormFunnelError.fromResponse(result.response, result.error);
  return result.data as UnwrappedData<Result>;
}
