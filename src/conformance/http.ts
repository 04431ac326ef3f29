/**
 * The kit's only way to the server under test: plain HTTP requests to its base URL. node:http(s) rather than
 * fetch, because Node 20's fetch takes no option to accept a self-signed certificate (`--insecure`).
 */
import http from 'node:http';
import https from 'node:https';

export interface Exchange {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  /** Text, or the bytes of a file (an image). */
  requestBody?: string | Uint8Array;
  status: number;
  /** Response headers, names in lower case, repeated ones joined with ", ". */
  headers: Record<string, string>;
  text: string;
  /** The parsed body when it is JSON (a `+json` media type too); `undefined` otherwise or when it does not parse. */
  json: unknown;
}

export interface HttpOptions {
  baseUrl: string;
  /** Accept any certificate (a server's self-signed one). */
  insecure: boolean;
  timeoutMs: number;
}

export interface RequestSpec {
  method: string;
  /** Path under the base URL, query string included. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

export function httpClient(options: HttpOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const secure = base.startsWith('https:');
  const agent = secure ? new https.Agent({ keepAlive: true, rejectUnauthorized: !options.insecure }) : new http.Agent({ keepAlive: true });

  const send = (spec: RequestSpec): Promise<Exchange> => {
    const url = `${base}${spec.path}`;
    // A body's length is always sent: Node would otherwise send a DELETE's body chunked, which servers may refuse.
    const requestHeaders: Record<string, string> = { accept: 'application/json, application/problem+json', ...spec.headers };
    if (spec.body !== undefined) requestHeaders['content-length'] = String(Buffer.byteLength(spec.body));
    return new Promise<Exchange>((resolve, reject) => {
      const request = (secure ? https : http).request(
        url,
        { method: spec.method, headers: requestHeaders, agent, timeout: options.timeoutMs },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', reject);
          incoming.on('end', () => {
            const headers: Record<string, string> = {};
            for (const [name, value] of Object.entries(incoming.headers)) {
              if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
            }
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              method: spec.method,
              url,
              requestHeaders,
              requestBody: spec.body,
              status: incoming.statusCode ?? 0,
              headers,
              text,
              json: parseJson(headers['content-type'], text),
            });
          });
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
      request.on('error', reject);
      request.end(spec.body);
    });
  };

  return { send, close: () => agent.destroy() };
}

export type HttpClient = ReturnType<typeof httpClient>;

function parseJson(contentType: string | undefined, text: string): unknown {
  if (!contentType || !/^application\/([\w.-]+\+)?json\b/i.test(contentType)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
