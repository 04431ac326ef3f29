/**
 * `npm run bench:erase`: how long `POST /v1/submissions/erase` holds a SQLite server, by the number of
 * submissions the person has. Not a test (nothing here passes or fails); it prints a table.
 *
 * For each size in ERASE_ROWS (default 1000,10000), one person gets that many live submissions, each with its
 * stored `submission.created` event, among BACKGROUND_ROWS (default 50,000) submissions of other people; then the
 * erasure runs through the API. On SQLite the erasure is one synchronous transaction, so its duration is how long
 * every other request of the process waits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import type { Schema } from '../../src/contract.js';
import { newId } from '../../src/ids.js';
import { completeContext } from '../../src/store/rows/submissions.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { insertEvent } from '../../src/store/sqlite/outbox.js';
import { insertSubmissionRow } from '../../src/store/sqlite/submissions.js';
import { demoForm } from '../http/submissions-support.js';
import { createTestApi } from '../support/harness.js';
import { highLimits } from './bench-app.js';
import { scoredTemplates } from './submission-templates.js';

const SIZES = (process.env.ERASE_ROWS ?? '1000,10000').split(',').map(Number);
const BACKGROUND_ROWS = Number(process.env.BACKGROUND_ROWS ?? 50_000);
const log = (line: string) => process.stdout.write(`${line}\n`);

const dir = mkdtempSync(join(tmpdir(), 'form-funnel-erase-bench-'));
const db = openDatabase(join(dir, 'bench.db'));
// The tests' harness: the real app over TLS on a temp-file SQLite database.
const api = await createTestApi({ store: createSqliteStore(db), rateLimits: highLimits, logger: pino({ level: 'silent' }) });
const workspace = api.workspace;
const call = (method: 'post', path: string, body: unknown) => api.call(method, path).send(body as object);

const { slug: _slug, ...formBody } = demoForm();
const created = await call('post', '/v1/forms', formBody);
if (created.status !== 201) throw new Error(`form: ${created.status} ${JSON.stringify(created.body)}`);
const form = created.body as Schema<'Form'>;
const templates = scoredTemplates(form);

/** `count` live submissions answered with `email`, each with its stored submission.created event. */
function seed(count: number, email: (index: number) => string): void {
  const start = Date.now() - 86_400_000;
  for (let first = 0; first < count; first += 10_000) {
    db.transaction(() => {
      for (let index = first; index < Math.min(first + 10_000, count); index++) {
        const template = templates[index % templates.length]!;
        const at = new Date(start + index).toISOString();
        const submission: Schema<'Submission'> = {
          id: newId('sub'),
          object: 'submission',
          form_id: form.id,
          form_version: form.version,
          status: template.status,
          test: false,
          answers: { ...template.answers, email: email(index) },
          hidden: template.hidden,
          context: completeContext({}),
          metadata: {},
          completed_at: template.status === 'completed' ? at : null,
          visited_steps: template.visited_steps,
          score: template.score,
          grade: template.grade,
          score_breakdown: template.score_breakdown,
          scored_at: at,
          created_at: at,
          updated_at: at,
        };
        insertSubmissionRow(db, { submission, workspaceId: workspace.workspace_id, environment: 'live' });
        const eventId = newId('evt');
        insertEvent(db, {
          id: eventId,
          workspaceId: workspace.workspace_id,
          environment: 'live',
          type: 'submission.created',
          formId: form.id,
          submissionId: submission.id,
          createdAt: at,
          body: JSON.stringify({ id: eventId, object: 'event', type: 'submission.created', data: { object: submission } }),
        });
      }
    })();
  }
}

seed(BACKGROUND_ROWS, (index) => `someone${index}@example.com`);
log(`erasure on SQLite, among ${BACKGROUND_ROWS.toLocaleString('en')} other submissions (each with its event)`);
log('| submissions of the person | erase (ms) | submissions per second |');
log('|---:|---:|---:|');
for (const size of SIZES) {
  const email = `person-${size}@example.com`;
  seed(size, () => email);
  const started = performance.now();
  const res = await call('post', '/v1/submissions/erase', { email });
  const ms = performance.now() - started;
  if (res.status !== 200 || res.body.deleted_submissions !== size) throw new Error(`erase: ${res.status} ${JSON.stringify(res.body)}`);
  log(`| ${size.toLocaleString('en')} | ${Math.round(ms)} | ${Math.round((size / ms) * 1000).toLocaleString('en')} |`);
}
await api.close();
rmSync(dir, { recursive: true, force: true });
