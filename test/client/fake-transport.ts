// A scripted fetch and a recording sleep, so client tests run without a network or a clock.
import type { FetchLike } from '../../src/client/index.js';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

// Each step builds a fresh Response (a body can be read only once); the last step repeats.
type Step = Error | (() => Response);

export function fakeFetch(...script: Step[]) {
  const requests: RecordedRequest[] = [];
  const fetch: FetchLike = async (request) => {
    requests.push({
      method: request.method,
      url: request.url,
      headers: new Headers(request.headers),
      body: await request.text(),
    });
    const step = script[Math.min(requests.length - 1, script.length - 1)];
    if (step === undefined) throw new Error('fakeFetch: empty script');
    if (step instanceof Error) throw step;
    return step();
  };
  return { fetch, requests };
}

export function recordingSleep() {
  const delays: number[] = [];
  const sleep = async (ms: number) => {
    delays.push(ms);
  };
  return { sleep, delays };
}

export const REQUEST_ID = 'req_0aB1cD2eF3gH4iJ5kL6mN7oP';
export const FORM_ID = 'form_0aB1cD2eF3gH4iJ5kL6mN7oP';

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const contentType = status >= 400 ? 'application/problem+json' : 'application/json';
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': contentType, 'X-Request-Id': REQUEST_ID, ...headers },
  });
}

export function problem(status: number, code: string, type: string, headers: Record<string, string> = {}) {
  return () => json(status, { type, code, status, title: type, message: `${code} happened`, request_id: REQUEST_ID }, headers);
}

export const formBody = {
  object: 'form',
  id: FORM_ID,
  request_id: REQUEST_ID,
};

export const ok = () => json(200, formBody);
export const created = () => json(201, formBody);
