/**
 * The other workspace's reader of `npm run bench:search`, run as a child process so that its own work does not
 * wait on the server's event loop (which the searches keep busy): GET requests one after another over one
 * kept-alive TLS connection, each latency in milliseconds printed as one JSON array.
 *
 * Usage: node --import tsx test/bench/sequential-client.ts <url> <authorization> <count> <CA certificate file>
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { performance } from 'node:perf_hooks';

const [url, authorization, count, caFile] = process.argv.slice(2);
const target = new URL(url!);
const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: readFileSync(caFile!, 'utf8'), servername: 'localhost' });

function get(): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.get({ host: target.hostname, port: target.port, path: target.pathname, agent, headers: { authorization } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

const times: number[] = [];
for (let index = 0; index < Number(count); index++) {
  const began = performance.now();
  const status = await get();
  if (status !== 200) throw new Error(`${target.pathname} answered ${status}`);
  times.push(performance.now() - began);
}
agent.destroy();
process.stdout.write(JSON.stringify(times));
