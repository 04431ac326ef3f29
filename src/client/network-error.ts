/**
 * What a failed `fetch` means. Node's fetch rejects with `TypeError('fetch failed')` and hides the reason in
 * `cause` (sometimes one level deeper, or in an AggregateError when several addresses were tried); node:https
 * puts it in `code` directly. The code is what tells a certificate problem from a dropped connection.
 */

/**
 * OpenSSL's verification failures as Node reports them, and Node's own hostname check. Retrying cannot fix
 * any of them: the same certificate comes back on the next attempt.
 */
const certificateErrorCodes: ReadonlySet<string> = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_CHAIN_TOO_LONG',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'PATH_LENGTH_EXCEEDED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The first `code` found on the error or along its `cause` chain (ECONNREFUSED, CERT_HAS_EXPIRED, …). */
export function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, cause, errors } = current as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string') return code;
    current = cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  return undefined;
}

/** The innermost message, which names the reason ("connect ECONNREFUSED 127.0.0.1:8443") where the outer one says "fetch failed". */
export function networkErrorReason(error: unknown): string {
  let reason = error instanceof Error ? error.message : String(error);
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current.message) reason = current.message;
    current = current.cause ?? (current instanceof AggregateError ? current.errors[0] : undefined);
  }
  return reason;
}

export function isCertificateError(code: string | undefined): boolean {
  return code !== undefined && certificateErrorCodes.has(code);
}
