/**
 * Serves the API on PORT (default 8443): HTTPS with TLS_CERT and TLS_KEY, or with a self-signed certificate made
 * on first start in data/; plain HTTP with HTTP=1, for local development only (the contract is HTTPS only).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import selfsigned from 'selfsigned';
import { buildApp } from './app.js';
import { handlers } from './handlers/index.js';

async function tlsOptions(): Promise<{ cert: string; key: string }> {
  const certFile = process.env.TLS_CERT ?? 'data/tls-cert.pem';
  const keyFile = process.env.TLS_KEY ?? 'data/tls-key.pem';
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    mkdirSync('data', { recursive: true });
    const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
      keySize: 2048,
      extensions: [
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    });
    writeFileSync(certFile, pems.cert);
    writeFileSync(keyFile, pems.private, { mode: 0o600 });
    console.warn(`Created a self-signed certificate in ${certFile}; clients trust it with NODE_EXTRA_CA_CERTS=${certFile}.`);
  }
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

const app = buildApp({ handlers });
const plainHttp = process.env.HTTP === '1';
const server = plainHttp ? http.createServer(app) : https.createServer(await tlsOptions(), app);
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 8443);
server.once('error', (error) => {
  console.error(`Cannot listen on ${host}:${port}: ${error.message}`);
  process.exit(1);
});
server.listen(port, host, () => {
  const { port: listening } = server.address() as { port: number };
  console.log(`Listening on ${plainHttp ? 'http' : 'https'}://${host}:${listening}/v1`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.close(() => process.exit(0)));
