/**
 * An HTTP proxy in front of the mock that records every exchange (method, path, query, request headers, status) under
 * the name of the code sample being run, so a test can tell what a sample sent, not only that it ended well.
 *
 * Lists: the mock answers every page with `has_more: false`. The proxy turns the first page of a list (a GET without
 * a cursor whose answer has items) into `has_more: true`, so a sample that pages to the end must ask for the page
 * after its last item, which the mock then answers as the last.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
  sample: string;
  method: string;
  /** The path below the base URL (`/forms/form_…`), as the operation's path template would match it. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  status: number;
  /** The `ETag` of the answer, if it had one. */
  entityTag?: string;
  /** The id of the last item, when the proxy made this first page of a list say `has_more: true`. */
  lastItemOfFirstPage?: string;
}

export interface RecordingProxy {
  /** The base URL samples are given (`http://127.0.0.1:<port>/v1`, like the mock's and production's). */
  url: string;
  exchanges: Exchange[];
  /** Names the sample that the next requests belong to. */
  runSample(name: string): void;
  /** What a sample's process calls to name itself (`POST <controlUrl>/<name>`), when the test cannot do it. */
  controlUrl: string;
  stop(): Promise<void>;
}

const CONTROL_PATH = '/__sample';

export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const upstreamUrl = new URL(upstream);
  const basePath = upstreamUrl.pathname.replace(/\/$/, '');
  const exchanges: Exchange[] = [];
  let sample = '(none)';

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://proxy.invalid');
      if (url.pathname.startsWith(`${CONTROL_PATH}/`)) {
        sample = decodeURIComponent(url.pathname.slice(CONTROL_PATH.length + 1));
        response.writeHead(204).end();
        return;
      }
      void forward(request.method ?? 'GET', url, request.headers, Buffer.concat(chunks)).then(
        ({ status, headers, body, lastItemOfFirstPage }) => {
          const entityTag = headers.etag;
          exchanges.push({
            sample,
            method: request.method ?? 'GET',
            path: url.pathname.slice(basePath.length),
            query: url.searchParams,
            headers: request.headers,
            status,
            ...(entityTag !== undefined && { entityTag }),
            ...(lastItemOfFirstPage !== undefined && { lastItemOfFirstPage }),
          });
          response.writeHead(status, headers).end(body);
        },
        (error: Error) => {
          const record = { sample, method: request.method ?? 'GET', path: url.pathname.slice(basePath.length) };
          exchanges.push({ ...record, query: url.searchParams, headers: request.headers, status: 502 });
          response
            .writeHead(502, { 'Content-Type': 'text/plain' })
            .end(`proxy: ${error.message}${error.cause ? ` (${String(error.cause)})` : ''}`);
        },
      );
    });
  });

  // Each exchange on a connection of its own (no agent, so no keep-alive): a reused idle socket that the mock closed
  // meanwhile would fail a sample for a reason of the proxy's. The request asks for no compression, so the body read
  // is the body sent.
  async function forward(method: string, url: URL, requestHeaders: IncomingHttpHeaders, requestBody: Buffer) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(requestHeaders)) {
      if (value !== undefined && !['host', 'connection', 'content-length', 'accept-encoding'].includes(name)) headers[name] = String(value);
    }
    if (requestBody.length > 0) headers['content-length'] = String(requestBody.length);
    const answer = await new Promise<{ status: number; ok: boolean; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const outgoing = httpRequest(`${upstreamUrl.origin}${url.pathname}${url.search}`, { method, headers, agent: false }, (incoming) => {
        const received: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => received.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const status = incoming.statusCode ?? 502;
          resolve({ status, ok: status >= 200 && status < 300, headers: incoming.headers, body: Buffer.concat(received) });
        });
      });
      outgoing.on('error', reject);
      outgoing.end(requestBody.length > 0 ? requestBody : undefined);
    });
    let body = answer.body;
    let lastItemOfFirstPage: string | undefined;
    const firstPage = method === 'GET' && !url.searchParams.has('starting_after') && !url.searchParams.has('ending_before');
    if (firstPage && answer.ok && answer.headers['content-type']?.startsWith('application/json')) {
      const page = JSON.parse(body.toString('utf8')) as { object?: string; data?: Array<{ id: string }>; has_more?: boolean };
      if (page.object === 'list' && Array.isArray(page.data) && page.data.length > 0) {
        lastItemOfFirstPage = page.data.at(-1)!.id;
        body = Buffer.from(JSON.stringify({ ...page, has_more: true }));
      }
    }
    const headersOut: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      // The proxy sends the body whole, perhaps changed (has_more), on its own connection.
      if (value !== undefined && !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name)) {
        headersOut[name] = Array.isArray(value) ? value.join(', ') : value;
      }
    }
    return { status: answer.status, headers: headersOut, body, lastItemOfFirstPage };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}${basePath}`,
    controlUrl: `${origin}${CONTROL_PATH}`,
    exchanges,
    runSample: (name) => {
      sample = name;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
