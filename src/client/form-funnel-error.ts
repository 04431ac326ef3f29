import type { ErrorCode, ErrorType, Problem, ProblemDetails } from './schemas.js';

/**
 * An error response of the API. `code` is the field to switch on (the contract lists every code);
 * `requestId` is what support asks for. A body that is not a problem document (a proxy's HTML
 * 502, say) still yields an error with `status`, and with `requestId` from the X-Request-Id header
 * when there is one; `type`, `code` and `problem` are then undefined.
 */
export class FormFunnelError extends Error {
  override readonly name = 'FormFunnelError';
  readonly status: number;
  readonly type: ErrorType | undefined;
  readonly code: ErrorCode | undefined;
  readonly details: ProblemDetails | undefined;
  readonly requestId: string | undefined;
  /** The problem body as received, when the response carried one. */
  readonly problem: Problem | undefined;

  constructor(status: number, problem: Problem | undefined, requestId?: string, fallbackMessage?: string) {
    super(problem?.message ?? fallbackMessage ?? `Form-Funnel API answered HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.type = problem?.type;
    this.code = problem?.code;
    this.details = problem?.details;
    this.requestId = problem?.request_id ?? requestId;
  }

  /** `body` is what openapi-fetch parsed as `error`: JSON when the response was JSON, else text. */
  static fromResponse(response: Response, body: unknown): FormFunnelError {
    const problem = isProblem(body) ? body : undefined;
    const statusText = response.statusText ? ` ${response.statusText}` : '';
    return new FormFunnelError(
      response.status,
      problem,
      response.headers.get('X-Request-Id') ?? undefined,
      `Form-Funnel API answered HTTP ${response.status}${statusText}`,
    );
  }
}

export function isFormFunnelError(error: unknown): error is FormFunnelError {
  return error instanceof FormFunnelError;
}

// Only the members the client relies on are checked; the rest is taken as the contract describes it.
function isProblem(body: unknown): body is Problem {
  if (typeof body !== 'object' || body === null) return false;
  const { type, code, message } = body as Record<string, unknown>;
  return typeof type === 'string' && typeof code === 'string' && typeof message === 'string';
}
