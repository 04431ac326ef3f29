/**
 * The origins a publishable key allows. The document's pattern admits the shape (`https://host[:port]`, or
 * `http://localhost` / `http://127.0.0.1` with a port); what a pattern cannot say is checked here: the origin must be
 * exactly what a browser sends in its `Origin` header (so a CORS check can compare strings), its port must be a
 * port, and plain HTTP is for development with test keys only.
 */
import type { Environment, ValidationIssue } from '../../contract.js';

const developmentHosts = new Set(['localhost', '127.0.0.1']);

function originIssue(origin: string, environment: Environment): { code: string; message: string } | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return { code: 'invalid_origin', message: `${origin} is not a web origin` };
  }
  // A browser's Origin header leaves out the scheme's default port and writes the host as the URL parser does.
  if (url.origin !== origin) return { code: 'invalid_origin', message: `${origin} is not written as browsers send it: ${url.origin}` };
  if (url.protocol === 'http:' && !(developmentHosts.has(url.hostname) && environment === 'test')) {
    return { code: 'insecure_origin', message: `${origin} is allowed for test keys only; a live key needs https:// origins` };
  }
  return undefined;
}

export function checkAllowedOrigins(origins: readonly string[], environment: Environment): ValidationIssue[] {
  return origins.flatMap((origin, index) => {
    const issue = originIssue(origin, environment);
    return issue ? [{ location: 'body' as const, pointer: `/allowed_origins/${index}`, ...issue }] : [];
  });
}
