/**
 * A load generator of the PostgreSQL bench, run as a child process: autocannon's API with 16 connections, each
 * request's body the next of a JSON array of bodies in turn (submissions spread over many forms). Prints autocannon's
 * result as JSON.
 *
 * Plain JavaScript: autocannon ships no types.
 *
 * Usage: node test/bench/rotating-load.mjs <url> <authorization> <seconds> <file with a JSON array of bodies>
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const [url, authorization, seconds, bodiesFile] = process.argv.slice(2);
const bodies = JSON.parse(readFileSync(bodiesFile, 'utf8')).map((body) => JSON.stringify(body));
let next = 0;
const result = await autocannon({
  url,
  method: 'POST',
  connections: 16,
  duration: Number(seconds),
  headers: { authorization, 'content-type': 'application/json' },
  requests: [{ setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }) }],
});
process.stdout.write(JSON.stringify(result));
