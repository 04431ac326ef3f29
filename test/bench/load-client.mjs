/**
 * The load generator of the event-loop bench, run as a child process so that its work does not land on the
 * server's event loop: autocannon's API with 4 connections, where `[<n>]` in the body becomes a counter so
 * every request is new (autocannon's own `--idReplacement` miscounts Content-Length). Prints autocannon's
 * result as JSON.
 *
 * Plain JavaScript: autocannon ships no types.
 *
 * Usage: node test/bench/load-client.mjs <url> <method> <authorization> <seconds> [body file]
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const [url, method, authorization, seconds, bodyFile] = process.argv.slice(2);
const template = bodyFile === undefined ? undefined : readFileSync(bodyFile, 'utf8');
let counter = 0;
const result = await autocannon({
  url,
  method,
  connections: 4,
  duration: Number(seconds),
  headers: { authorization, ...(template === undefined ? {} : { 'content-type': 'application/json' }) },
  requests: [
    {
      setupRequest: (request) => (template === undefined ? request : { ...request, body: template.replace('[<n>]', String(++counter)) }),
    },
  ],
});
process.stdout.write(JSON.stringify(result));
