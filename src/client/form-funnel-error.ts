import { isCertificateError, networkErrorCode, networkErrorReason } from './network-error.js';
import type { ErrorCode, ErrorType, OpenEnum, Problem, ProblemDetails } from './schemas.js';

/**
 * `api`: the API (or something in front of it) answered with an error status. `network`: no answer came: the
 * connection was refused or dropped, the name did not resolve, or the TLS certificate was rejected.
 */
export type FormFunnelErrorKind = 'api' | 'network';

/** How much of a body that is not a problem document is kept in the message: enough to recognise a proxy's page. */
const BODY_EXCERPT_CHARS = 200;

interface FormFunnelErrorInit {
  kind: FormFunnelErrorKind;
  message: string;
  status: number;
  problem?: Problem | undefined;
  requestId?: string | undefined;
  networkCode?: string | undefined;
  cause?: unknown;
}

/**
 * An error of the API or of the way to it. `code` is the field to switch on (the contract lists every code);
 * `requestId` is what support asks for. A body that is not a problem document (a proxy's HTML 502, a mock's
 * own error) still yields an error with `status`, its content type and the start of the body in `message`,
 * and `requestId` from the X-Request-Id header when there is one; `type`, `code` and `problem` are then
 * undefined. A `network` error has `status` 0, the original error as `cause` and its code in `networkCode`.
 */
export class FormFunnelError extends Error {
  override readonly name = 'FormFunnelError';
  readonly kind: FormFunnelErrorKind;
  /** The HTTP status; 0 when no response arrived (`kind: 'network'`). */
  readonly status: number;
  readonly type: ErrorType | undefined;
  /** The problem's code: one of the document's `ErrorCode`s, or one added since this client was built. */
  readonly code: OpenEnum<ErrorCode> | undefined;
  readonly details: ProblemDetails | undefined;
  readonly requestId: string | undefined;
  /** The problem body as received, when the response carried one. */
  readonly problem: Problem | undefined;
  /** For `network` errors, Node's code of the failure: `ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`, … */
  readonly networkCode: string | undefined;

  private constructor(init: FormFunnelErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.status = init.status;
    this.problem = init.problem;
    this.type = init.problem?.type;
    this.code = init.problem?.code;
    this.details = init.problem?.details;
    this.requestId = init.problem?.request_id ?? init.requestId;
    this.networkCode = init.networkCode;
  }

  /** `body` is what openapi-fetch parsed as `error`: JSON when the response was JSON, else text. */
  static fromResponse(response: Response, body: unknown): FormFunnelError {
    const requestId = response.headers.get('X-Request-Id') ?? undefined;
    if (isProblem(body))
      return new FormFunnelError({ kind: 'api', message: body.message, status: response.status, problem: body, requestId });
    const statusText = response.statusText ? ` ${response.statusText}` : '';
    const contentType = response.headers.get('Content-Type');
    const excerpt = bodyExcerpt(body);
    const detail = [contentType && `(${contentType})`, excerpt && `: ${excerpt}`].filter(Boolean).join('');
    return new FormFunnelError({
      kind: 'api',
      message: `Form-Funnel API answered HTTP ${response.status}${statusText} without a problem body${detail ? ` ${detail}` : ''}`,
      status: response.status,
      requestId,
    });
  }

  /** A fetch that rejected: nothing was received, so there is no status and no request id. */
  static fromNetworkError(request: Request, error: unknown): FormFunnelError {
    const networkCode = networkErrorCode(error);
    const { origin, pathname } = new URL(request.url);
    const target = `${request.method} ${origin}${pathname}`;
    const reason = networkErrorReason(error);
    const codeFirst = networkCode && !reason.includes(networkCode) ? `${networkCode} ` : '';
    const message = isCertificateError(networkCode)
      ? `Form-Funnel API at ${origin}: the TLS certificate was rejected (${networkCode}: ${reason}). ` +
        'For a server with a self-signed certificate, trust it with NODE_EXTRA_CA_CERTS=<certificate.pem>.'
      : `Form-Funnel API could not be reached (${target}): ${codeFirst}${reason}`;
    return new FormFunnelError({ kind: 'network', message, status: 0, networkCode, cause: error });
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

/** The start of the body; an RFC 9457 problem of another service (a mock's, a gateway's) by its title and detail. */
function bodyExcerpt(body: unknown): string {
  if (body === undefined || body === null || body === '') return '';
  const { title, detail } = (typeof body === 'object' ? body : {}) as { title?: unknown; detail?: unknown };
  const described = [title, detail].filter((part): part is string => typeof part === 'string' && part !== '');
  const raw = described.length > 0 ? described.join(': ') : typeof body === 'string' ? body : JSON.stringify(body);
  const text = raw.replace(/\s+/g, ' ').trim();
  return text.length > BODY_EXCERPT_CHARS ? `${text.slice(0, BODY_EXCERPT_CHARS)}…` : text;
}
