/**
 * `npm run bench:postgres-create`: where a submission create's cost lies on PostgreSQL, without HTTP. The domain's
 * `createSubmission` runs through the PostgreSQL store from `CONCURRENCY` loops (default 16) for `BENCH_SECONDS` each
 * (default 6): to one form, spread over 100 forms, and to one form again (the first figure carries the warm-up).
 * Beside the rate it prints, per create, the CPU time of this process (the domain, the statement's building, the
 * driver) and of every PostgreSQL process of the machine (the backends, the WAL writer: on a shared machine, other
 * databases' work too), the bytes written to the database, and what the backends were waiting on, sampled every
 * 20 ms from `pg_stat_activity` (`Client:ClientRead:idle` is a backend waiting for this process).
 *
 * Baseline: one `INSERT` of the created submission's JSON into a table with a primary key only, from the same loops,
 * measured the same way in the same run.
 *
 * The server named by BENCH_DATABASE_URL, else DATABASE_URL, else the local postgres://postgres@127.0.0.1:5432/postgres;
 * a database of its own, dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { loadavg } from 'node:os';
import pg from 'pg';
import { dnsWebhookUrlPolicy } from '../../src/adapters/dns-resolver.js';
import type { Schema } from '../../src/contract.js';
import { createForm } from '../../src/domain/forms/service.js';
import { integrationEvents } from '../../src/domain/integrations/publisher.js';
import { authenticate } from '../../src/domain/keys/authenticate.js';
import type { Services } from '../../src/domain/services.js';
import { createSubmission } from '../../src/domain/submissions/service.js';
import { bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { anaAnswers, anaHidden, demoForm } from '../http/submissions-support.js';
import { commandMs, spentBetween } from './process-cpu.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const serverUrl = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const log = (line: string) => process.stdout.write(`${line}\n`);

/** Bytes this process writes to sockets (the database's, here), counted below Node's stream layer. */
let written = 0;
const socket = net.Socket.prototype as unknown as {
  _writev(chunks: Array<{ chunk: Buffer }>, callback: unknown): unknown;
  _write(chunk: Buffer, encoding: unknown, callback: unknown): unknown;
};
const { _writev: writev, _write: write } = socket;
socket._writev = function (chunks, callback) {
  for (const { chunk } of chunks) written += chunk.length;
  return writev.call(this, chunks, callback);
};
socket._write = function (chunk, encoding, callback) {
  written += chunk.length;
  return write.call(this, chunk, encoding, callback);
};

const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
const databaseName = `ff_bench_create_${randomBytes(4).toString('hex')}`;
await admin.query(`CREATE DATABASE ${databaseName}`);
const databaseUrl = new URL(serverUrl);
databaseUrl.pathname = `/${databaseName}`;
const store = await createPostgresStore(databaseUrl.toString(), { max: 10 });
try {
  const services: Services = { store, now: () => new Date(), events: integrationEvents(), webhookUrls: dnsWebhookUrlPolicy() };
  const workspace = await bootstrapWorkspace(services, { name: 'Bench', plan: 'business' });
  const principal = await authenticate(services, `Bearer ${workspace.live_admin_key}`, '127.0.0.1', { record() {} });
  const { slug: _slug, ...form } = demoForm();
  const forms: string[] = [];
  for (let index = 0; index < 100; index++)
    forms.push((await createForm(services, principal, { ...form, name: `Form ${index}` } as Schema<'FormCreate'>)).id);
  const answers = anaAnswers();
  const hidden = anaHidden();
  const created = await createSubmission(services, principal, { form_id: forms[0]!, answers, hidden } as Schema<'SubmissionCreate'>);
  await store.pool.query('CREATE TABLE plain_submissions (id TEXT PRIMARY KEY, body JSONB NOT NULL)');
  const plainBody = JSON.stringify(created);

  async function measure(label: string, create: (index: number) => Promise<unknown>): Promise<void> {
    let done = 0;
    let next = 0;
    const waits = new Map<string, number>();
    let samples = 0;
    const stopAt = Date.now() + SECONDS * 1000;
    const sampler = (async () => {
      while (Date.now() < stopAt) {
        const { rows } = await admin.query<{ wait: string }>(
          `SELECT coalesce(wait_event_type, 'CPU') || ':' || coalesce(wait_event, '-') || ':' || state AS wait
             FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`,
          [databaseName],
        );
        samples++;
        for (const { wait } of rows) waits.set(wait, (waits.get(wait) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    written = 0;
    const started = performance.now();
    const postgresBefore = commandMs(['postgres']);
    const nodeBefore = process.cpuUsage();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < stopAt) {
          await create(next++);
          done++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const node = process.cpuUsage(nodeBefore);
    const postgresMs = spentBetween(postgresBefore, commandMs(['postgres']));
    await sampler;
    const perCreate = (ms: number) => `${Math.round((ms / done) * 1000)} us`;
    log(
      `${label}: ${Math.round(done / seconds)} per second; CPU per create: this process ${perCreate((node.user + node.system) / 1000)}, ` +
        `PostgreSQL ${perCreate(postgresMs)}; ${Math.round(written / done)} bytes written per create`,
    );
    const busiest = [...waits].sort((a, b) => b[1] - a[1]).slice(0, 5);
    log(
      `  backends by state (mean of ${samples} samples): ${busiest.map(([wait, count]) => `${wait} ${(count / samples).toFixed(2)}`).join(', ')}`,
    );
  }

  log(
    `${CONCURRENCY} loops, ${SECONDS} s each, pool of 10; load average at start ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  );
  const submit = (formId: string) =>
    createSubmission(services, principal, { form_id: formId, answers, hidden } as Schema<'SubmissionCreate'>);
  await measure('createSubmission, one form (warm-up)', () => submit(forms[0]!));
  await measure('createSubmission, 100 forms', (index) => submit(forms[index % 100]!));
  await measure('createSubmission, one form', () => submit(forms[0]!));
  await measure('baseline: one INSERT', () =>
    store.pool.query('INSERT INTO plain_submissions (id, body) VALUES ($1, $2)', [randomBytes(12).toString('hex'), plainBody]),
  );
  log(
    `load average at end ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  );
} finally {
  await store.close();
  await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  await admin.end();
}
