/**
 * Process entry: configuration, the store (SQLite, or PostgreSQL with DATABASE_URL), HTTPS (and the optional
 * refusing HTTP listener), the periodic jobs, and a graceful shutdown that stops taking requests (kept-alive
 * connections included), finishes in-flight ones and closes the database. With `WORKERS` above 1 this process
 * is the cluster's primary (`./cluster.ts`) and each worker it forks runs everything below.
 */
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import { join } from 'node:path';
import type pino from 'pino';
import selfsigned from 'selfsigned';
import { dnsWebhookUrlPolicy } from './adapters/dns-resolver.js';
import { httpsTransport } from './adapters/webhook-transport.js';
import { adminInvocation, serverBaseUrl, withoutPassword } from './cli/admin-invocation.js';
import { runPrimary, type WorkerListening } from './cluster.js';
import { type Config, ConfigError, helpText, loadConfig } from './config.js';
import { inBatches } from './domain/batches.js';
import { purgeExpiredEvents } from './domain/event-feed/service.js';
import { integrationEvents } from './domain/integrations/publisher.js';
import { backoffWithBase } from './domain/integrations/retry-schedule.js';
import { purgeExpiredSigningSecrets } from './domain/integrations/service.js';
import { startDeliveryWorker } from './domain/integrations/worker.js';
import { sweepExpiredKeys } from './domain/keys/service.js';
import { after, lifetimes } from './domain/people/tokens.js';
import { startRescoreWorker } from './domain/rescore-jobs/worker.js';
import { USAGE_FLUSH_INTERVAL_MS } from './domain/usage/meter.js';
import { buildApp } from './http/app.js';
import { type Contract, loadOrBundleContract } from './http/contract-document.js';
import { idempotencyTtlSeconds } from './http/documented-limits.js';
import { redisRateLimits } from './http/redis-rate-limits.js';
import { createHttpListener, createHttpsListener } from './listeners.js';
import { createLogger } from './logger.js';
import { mailerFromConfig } from './mail/mailer.js';
import { ensurePrivateDirectory } from './private-files.js';
import { type JobLock, singleProcessJobLock } from './store/job-lock.js';
import { openStore } from './store/open.js';
import { postgresJobLock } from './store/postgres/job-lock.js';
import type { Store } from './store/types.js';

async function tlsMaterial(config: Config, log: pino.Logger): Promise<{ key: string; cert: string }> {
  if (config.tlsCert && config.tlsKey) return { cert: readFileSync(config.tlsCert, 'utf8'), key: readFileSync(config.tlsKey, 'utf8') };
  const certFile = join(config.dataDir, 'tls-cert.pem');
  const keyFile = join(config.dataDir, 'tls-key.pem');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    ensurePrivateDirectory(config.dataDir, (message) => log.warn(message));
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

/**
 * The key that signs proof-of-work challenges: CHALLENGE_HMAC_KEY, or one created in the data directory on first
 * start and kept there, like the self-signed certificate (the primary makes it before forking its workers).
 */
function challengeHmacKey(config: Config, log: pino.Logger): string {
  if (config.challengeHmacKey) return config.challengeHmacKey;
  const keyFile = join(config.dataDir, 'challenge-hmac.key');
  if (!existsSync(keyFile)) {
    ensurePrivateDirectory(config.dataDir, (message) => log.warn(message));
    writeFileSync(keyFile, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    log.info({ keyFile }, 'created the key that signs proof-of-work challenges; set CHALLENGE_HMAC_KEY to share one between machines');
  }
  return readFileSync(keyFile, 'utf8').trim();
}

/** Idempotency keys deleted per batch of the hourly purge: a few milliseconds each on SQLite, which yields between them. */
const IDEMPOTENCY_PURGE_BATCH = 1000;

const listen = (server: http.Server, port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as { port: number }).port));
  });

function banner(config: Config, port: number, servesDocs: boolean): string {
  const base = serverBaseUrl(config, port);
  return [
    '',
    `Form-Funnel API listening on ${base}/v1${config.workers > 1 ? ` (${config.workers} worker processes)` : ''}`,
    `  dashboard       ${base}/dashboard`,
    servesDocs ? `  reference docs  ${base}/docs` : '  reference docs  not built: run `npm run docs` (npm start does)',
    `  contract        ${base}/openapi.yaml  ${base}/openapi.json`,
    '',
    'First steps: create a workspace, its admin account and its first keys with',
    `  ${adminInvocation(config, port, 'bootstrap --workspace "Acme" --plan business --email you@example.com')}`,
    `open the sign-in link it prints, add a passkey, and open ${base}/dashboard: forms, leads, analytics, the team.`,
    ...(config.databaseUrl !== null && withoutPassword(config.databaseUrl) !== config.databaseUrl
      ? ['  (with the database password in place of <password>)']
      : []),
    `then: curl -k ${base}/v1/me -H "Authorization: Bearer <key>"`,
    '',
  ].join('\n');
}

/** Thrown when a port cannot be had; its message is the one line the operator needs. */
class ListenError extends Error {}

/** Listens, or says in one line which variable names the port that could not be used and why. */
async function listenOn(server: http.Server, variable: 'PORT' | 'HTTP_PORT', port: number, host: string): Promise<number> {
  try {
    return await listen(server, port, host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new ListenError(
        `${variable}=${port} is already in use on ${host}: stop the process listening there or set ${variable} to a free port.`,
      );
    }
    if (code === 'EACCES') throw new ListenError(`${variable}=${port} needs privileges on ${host}: set ${variable} to a port above 1023.`);
    if (code === 'EADDRNOTAVAIL') throw new ListenError(`HOST=${host} is not an address of this machine: set HOST (${variable}=${port}).`);
    throw error;
  }
}

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
      process.stderr.write(`${error.message} (npm start -- --help lists every variable)\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  const log = createLogger(config);
  if (config.workers > 1 && cluster.isPrimary) {
    // Made once here, so the workers do not race to create the same self-signed certificate.
    await tlsMaterial(config, log);
    challengeHmacKey(config, log);
    runPrimary(config.workers, { log, onListening: ({ port, servesDocs }) => process.stdout.write(banner(config, port, servesDocs)) });
    return;
  }
  await serve(config, log);
  // A worker that could not start (no document, no database) has nothing left to do, but its channel to the
  // primary would keep it alive: exit, so the primary sees it and stops the cluster.
  if (cluster.isWorker && process.exitCode) process.exit(process.exitCode);
}

async function serve(config: Config, log: pino.Logger): Promise<void> {
  let contract: Contract;
  try {
    contract = await loadOrBundleContract();
  } catch (error) {
    // Without the document there is nothing to serve: one line saying what to run, not a stack trace.
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  let store: Store;
  try {
    store = await openStore(config, { warn: (message) => log.warn(message) });
  } catch (error) {
    // An unreachable or missing database: one line naming it, not a stack trace.
    process.stderr.write(`Cannot open the database: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const jobLock: JobLock = config.databaseUrl
    ? postgresJobLock(config.databaseUrl, { onError: (error) => log.warn({ err: error }, 'periodic-job lock session lost') })
    : singleProcessJobLock();
  const sharedLimits = config.redis
    ? redisRateLimits(config.rateLimits, {
        ...config.redis,
        onAvailabilityChange: (available, error) =>
          available
            ? log.info('Redis answers: rate limits are shared by every process')
            : log.warn({ err: error?.message }, 'Redis unreachable: each process counts rate limits on its own until it answers'),
      })
    : null;
  if (sharedLimits && !(await sharedLimits.ready(5000))) log.warn('starting without Redis');
  const events = integrationEvents();
  let listeningPort = config.port;
  const { app, services, flushLastUsed, flushUsage, servesDocs, mail } = buildApp({
    store,
    contract,
    logger: log,
    events,
    webhookUrls: dnsWebhookUrlPolicy(config.allowPrivateWebhookUrls),
    trustedProxies: config.trustedProxies,
    rateLimits: sharedLimits?.policy ?? config.rateLimits,
    validateResponses: config.validateResponses,
    deprecation: config.deprecation,
    concurrency: config.concurrency,
    challengeHmacKey: challengeHmacKey(config, log),
    publicBaseUrl: config.publicBaseUrl ?? undefined,
    // Without PUBLIC_BASE_URL, hosted forms' URLs name this server, on the port it listens on (with PORT=0, known
    // only once listening).
    localBaseUrl: () => `https://localhost:${listeningPort}`,
    // Invitations and sign-in links: through SMTP_URL, or as .eml files in DATA_DIR/mail with their links logged.
    // Every process sends; the store's claims give each message to one of them.
    mailer: mailerFromConfig(config, log),
  });

  const secure = createHttpsListener(await tlsMaterial(config, log), app, config.connectionLimits);
  const plain = config.httpPort === null ? null : createHttpListener(app, config.connectionLimits);
  let port: number;
  try {
    port = await listenOn(secure.server, 'PORT', config.port, config.host);
    listeningPort = port;
    if (plain) await listenOn(plain.server, 'HTTP_PORT', config.httpPort!, config.host);
  } catch (error) {
    if (!(error instanceof ListenError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
    secure.server.close();
    await Promise.all([jobLock.close(), sharedLimits?.close()]);
    await store.close();
    return;
  }

  // Last-used times and API request counts are coalesced in each process's memory, so every process flushes its
  // own; the sweep (expired keys, replaced webhook secrets past their overlap) and the purge (idempotency keys,
  // events past the feed's 30 days) are the deployment's, run by whichever process holds the job lock.
  const sweep = () =>
    jobLock.runIfHolder(async () => {
      await sweepExpiredKeys(services);
      await purgeExpiredSigningSecrets(services);
    });
  const purge = () =>
    jobLock.runIfHolder(async () => {
      const before = new Date(services.now().getTime() - idempotencyTtlSeconds * 1000).toISOString();
      await inBatches(IDEMPOTENCY_PURGE_BATCH, (limit) => store.idempotency.purgeExpired(before, limit));
      // A spent challenge or started token past its expiry is refused as expired anyway, and a caught submission's
      // resume window has ended: their records are no longer needed.
      const now = services.now().toISOString();
      await inBatches(IDEMPOTENCY_PURGE_BATCH, (limit) => store.spam.purgeExpired(now, limit));
      // People's one-time links, sessions and sent mail are kept a day after they end (docs/operating/people.md).
      const dayAgo = new Date(services.now().getTime() - 86_400_000);
      const people = { before: dayAgo.toISOString(), idleBefore: after(dayAgo, -lifetimes.sessionIdleMs) };
      await inBatches(IDEMPOTENCY_PURGE_BATCH, (limit) => store.people.purgeExpired(people, limit));
      await purgeExpiredEvents(services);
    });
  const jobs = [
    setInterval(() => void flushLastUsed().catch((error) => log.error({ err: error }, 'last_used_at flush failed')), 30_000),
    setInterval(() => void flushUsage().catch((error) => log.error({ err: error }, 'usage flush failed')), USAGE_FLUSH_INTERVAL_MS),
    setInterval(() => void sweep().catch((error) => log.error({ err: error }, 'expiry sweep failed')), 60_000),
    setInterval(() => void purge().catch((error) => log.error({ err: error }, 'retention purge failed')), 3600_000),
    // Every process tries; the fold's own lock lets one run at a time (docs/internals/postgres-writes.md).
    setInterval(() => void store.foldAggregates?.().catch((error) => log.error({ err: error }, 'aggregate fold failed')), 1000),
  ];
  await sweep();
  const deliveries = startDeliveryWorker(services, {
    transport: httpsTransport(),
    backoff: backoffWithBase(config.webhookRetryBaseMs),
    onError: (error) => log.error({ err: error }, 'webhook delivery failed'),
  });
  // Every process runs queued rescore jobs; the store's leases give each job to one of them.
  const rescores = startRescoreWorker(services, { onError: (error) => log.error({ err: error }, 'rescore job failed') });

  log.info({ port, httpPort: config.httpPort }, 'listening');
  // In a cluster the primary prints the banner once every worker listens.
  if (cluster.isWorker) process.send!({ kind: 'listening', port, servesDocs } satisfies WorkerListening);
  else process.stdout.write(banner(config, port, servesDocs));

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
    await Promise.all([secure.drain(), plain ? plain.drain() : Promise.resolve(), deliveries.stop(), rescores.stop(), mail?.stop()]);
    clearTimeout(deadline);
    // A write that fails now (the database gone first) is logged: the process still closes what it holds.
    await flushLastUsed().catch((error) => log.error({ err: error }, 'last_used_at flush failed at shutdown'));
    await flushUsage().catch((error) => log.error({ err: error }, 'usage flush failed at shutdown'));
    await Promise.all([jobLock.close(), sharedLimits?.close()]);
    await store.close();
    log.info('stopped');
    log.flush();
    // A worker's channel to the primary would keep it alive; it has nothing left to do.
    if (cluster.isWorker) process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

await main();
