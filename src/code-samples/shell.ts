// The curl sample of an operation, for a POSIX shell (bash, zsh). It needs curl 7.84 or later (`%header{…}`,
// `--fail-with-body`), `openssl` for idempotency keys, and `jq` to page through a list.
import { BASE_URL_VARIABLE, concretePath, formEncoded, KEY_VARIABLE, PUBLISHABLE_KEY_EXAMPLE, type SampleRequest } from './request.js';

export const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** `${FORM_FUNNEL_BASE_URL:-https://…/v1}`: the base URL from its one place, production when unset or empty. */
export const baseUrlExpansion = (productionUrl: string): string => `\${${BASE_URL_VARIABLE}:-${productionUrl}}`;

const SECRET_KEY_AUTHORIZATION = `-H "Authorization: Bearer $${KEY_VARIABLE}"`;
const authorization = (request: SampleRequest): string =>
  request.publishable ? `-H 'Authorization: Bearer ${PUBLISHABLE_KEY_EXAMPLE}'` : SECRET_KEY_AUTHORIZATION;

export function curlSample(request: SampleRequest, productionUrl: string): string {
  const path = concretePath(request.pathName, request.pathParams);
  const query = formEncoded(request.query);
  const base = baseUrlExpansion(productionUrl);
  const auth = authorization(request);
  assertSafeInDoubleQuotes(`${path}${query}`);

  if (request.list) return listLoop(request, `${base}${path}${query ? `?${query}` : ''}`, query ? '&' : '?');

  const lines: string[] = [];
  let url = `${base}${path}${query ? `?${query}` : ''}`;
  if (request.entityTagFrom) {
    const readPath = concretePath(request.entityTagFrom, request.pathParams);
    lines.push(
      `url="${base}${readPath}"`,
      '# If-Match with the ETag of this read: a change made in between gets 412 instead of being overwritten.',
      `etag=$(curl -sS -o /dev/null -w '%header{etag}' "$url" ${request.authenticated ? auth : ''})`.trimEnd(),
    );
    url = `$url${path.slice(readPath.length)}${query ? `?${query}` : ''}`;
  }
  if (request.idempotencyKey) {
    lines.push('# Retrying with the same Idempotency-Key replays the first answer instead of repeating the change.');
    lines.push('idempotency_key=$(openssl rand -hex 16)');
  }
  const command = [`curl -X ${request.method.toUpperCase()} "${url}"`];
  if (request.authenticated) command.push(auth);
  if (request.idempotencyKey) command.push('-H "Idempotency-Key: $idempotency_key"');
  if (request.entityTagFrom) command.push('-H "If-Match: $etag"');
  if (request.body) {
    const { mediaType, value } = request.body;
    command.push(`-H ${shellQuote(`Content-Type: ${mediaType}`)}`);
    const encoded =
      mediaType === 'application/x-www-form-urlencoded' ? formEncoded(value as Record<string, unknown>) : JSON.stringify(value, null, 2);
    command.push(`-d ${shellQuote(encoded)}`);
  }
  if (request.file) {
    // The file itself is the body, byte for byte (`-d` would drop its line breaks), with its own media type.
    if (!/^[\w.-]+$/.test(request.file.fileName))
      throw new Error(`a curl sample's file name would need shell escaping: ${request.file.fileName}`);
    command.push(`-H ${shellQuote(`Content-Type: ${request.file.mediaType}`)}`, `--data-binary @${request.file.fileName}`);
  }
  return [...lines, command.join(' \\\n  ')].join('\n');
}

/** Every page of a list: the next one starts after the last item of this one, until `has_more` is false. */
function listLoop(request: SampleRequest, url: string, separator: '?' | '&'): string {
  const get = `curl -sS --fail-with-body "$url\${after:+${separator}starting_after=$after}"${request.authenticated ? ` \\\n    ${authorization(request)}` : ''}`;
  return [
    `url="${url}"`,
    'after=',
    '# Every page: the next one starts after the last item of this one, until has_more is false.',
    'while :; do',
    `  page=$(${get}) || { echo "$page" >&2; break; }`,
    `  echo "$page" | jq -c '.data[]'`,
    `  [ "$(echo "$page" | jq .has_more)" = true ] || break`,
    `  after=$(echo "$page" | jq -r '.data[-1].id')`,
    'done',
  ].join('\n');
}

/** Paths and queries are percent-encoded, so nothing in them can end the double quotes or expand. */
function assertSafeInDoubleQuotes(text: string): void {
  if (/[^A-Za-z0-9\-._~%/?=&+*:@,;]/.test(text)) throw new Error(`a curl sample's URL would need shell escaping: ${text}`);
}
