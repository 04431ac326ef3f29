/**
 * Process entry: configuration, the SQLite store, HTTPS (and the optional refusing HTTP listener), the
 * periodic jobs, and a graceful shutdown that stops taking requests (kept-alive connections included),
 * finishes in-flight ones and closes the database.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import { join } from 'node:path';
import type pino from 'pino';
import selfsigned from 'selfsigned';
import { dnsWebhookUrlPolicy } from './adapters/dns-resolver.js';
import { httpsTransport } from './adapters/webhook-transport.js';
import { type Config, ConfigError, helpText, loadConfig } from './config.js';
import { integrationEvents } from './domain/integrations/publisher.js';
import { startDeliveryWorker } from './domain/integrations/worker.js';
import { sweepExpiredKeys } from './domain/keys/service.js';
import { buildApp } from './http/app.js';
import { type Contract, loadOrBundleContract } from './http/contract-document.js';
import { idempotencyTtlSeconds } from './http/documented-limits.js';
import { createHttpListener, createHttpsListener } from './listeners.js';
import { createLogger } from './logger.js';
import { createSqliteStore } from './store/sqlite/index.js';

async function tlsMaterial(config: Config, log: pino.Logger): Promise<{ key: string; cert: string }> {
  if (config.tlsCert && config.tlsKey) return { cert: readFileSync(config.tlsCert, 'utf8'), key: readFileSync(config.tlsKey, 'utf8') };
  const certFile = join(config.dataDir, 'tls-cert.pem');
  const keyFile = join(config.dataDir, 'tls-key.pem');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    mkdirSync(config.dataDir, { recursive: true });
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
    log.warn({ certFile }, 'created a self-signed TLS certificate; set TLS_CERT and TLS_KEY for a real one');
  }
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

const listen = (server: http.Server, port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as { port: number }).port));
  });

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(helpText());
    return;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n\n${helpText()}`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  const log = createLogger(config);
  let contract: Contract;
  try {
    contract = await loadOrBundleContract();
  } catch (error) {
    // Without the document there is nothing to serve: one line saying what to run, not a stack trace.
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const store = createSqliteStore(join(config.dataDir, 'form-funnel.db'));
  const events = integrationEvents();
  const { app, services, flushLastUsed, servesDocs } = buildApp({
    store,
    contract,
    logger: log,
    events,
    webhookUrls: dnsWebhookUrlPolicy(config.allowPrivateWebhookUrls),
    trustedProxies: config.trustedProxies,
    rateLimits: config.rateLimits,
    validateResponses: config.validateResponses,
    deprecation: config.deprecation,
  });

  const secure = createHttpsListener(await tlsMaterial(config, log), app, config.connectionLimits);
  const port = await listen(secure.server, config.port, config.host);
  const plain = config.httpPort === null ? null : createHttpListener(app, config.connectionLimits);
  if (plain) await listen(plain.server, config.httpPort!, config.host);

  const jobs = [
    setInterval(() => void flushLastUsed().catch((error) => log.error({ err: error }, 'last_used_at flush failed')), 30_000),
    setInterval(() => void sweepExpiredKeys(services).catch((error) => log.error({ err: error }, 'key expiry sweep failed')), 60_000),
    setInterval(() => {
      const before = new Date(services.now().getTime() - idempotencyTtlSeconds * 1000).toISOString();
      void store.idempotency.purgeExpired(before).catch((error) => log.error({ err: error }, 'idempotency purge failed'));
    }, 3600_000),
  ];
  await sweepExpiredKeys(services);
  const deliveries = startDeliveryWorker(services, {
    transport: httpsTransport(),
    onError: (error) => log.error({ err: error }, 'webhook delivery failed'),
  });

  const base = config.publicBaseUrl ?? `https://localhost:${port}`;
  log.info({ port, httpPort: config.httpPort }, 'listening');
  process.stdout.write(
    [
      '',
      `Form-Funnel API listening on ${base}/v1`,
      servesDocs ? `  reference docs  ${base}/docs` : '  reference docs  not built: run `npm run docs` (npm start does)',
      `  contract        ${base}/openapi.yaml  ${base}/openapi.json`,
      '',
      'First admin key: there is no dashboard, so create a workspace and its keys with',
      '  npm run admin -- bootstrap --workspace "Acme" --plan business',
      `then: curl -k ${base}/v1/me -H "Authorization: Bearer <key>"`,
      '',
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    jobs.forEach(clearInterval);
    // In-flight requests get 10 seconds to finish; then the remaining connections are cut.
    const deadline = setTimeout(() => {
      secure.server.closeAllConnections();
      plain?.server.closeAllConnections();
    }, 10_000);
    // Webhook attempts in flight get their answer (10 s at most) recorded; pending ones stay queued in the database.
    await Promise.all([secure.drain(), plain ? plain.drain() : Promise.resolve(), deliveries.stop()]);
    clearTimeout(deadline);
    await flushLastUsed();
    await store.close();
    log.info('stopped');
    log.flush();
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

await main();
