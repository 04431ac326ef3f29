/**
 * PostgreSQL plans behind `updated_gte`: its planner chooses by statistics, so the table gets enough rows to have
 * some (20,000, all but a few changed long ago) and is analysed. A sync asking what changed since its last run
 * then reads the few changed rows through the updated_at index instead of walking the whole ordered list.
 * The other orders' plans at a million rows are printed by `npm run bench:postgres`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { createPostgresStore } from '../../src/store/postgres/index.js';
import type { SubmissionFilter, SubmissionOrder } from '../../src/store/submission-store.js';
import { createTestDatabase } from '../support/postgres.js';
import { form, submission, workspace } from './conformance/fixtures.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let store: Awaited<ReturnType<typeof createPostgresStore>>;
let workspaceId: string;
let formId: string;
const recently = '2031-06-01T00:00:00.000Z';

beforeAll(async () => {
  database = await createTestDatabase();
  const { createPostgresStore } = await import('../../src/store/postgres/index.js');
  store = await createPostgresStore(database.url, { max: 1 });
  workspaceId = await workspace(store);
  const written = form('plans');
  formId = written.id;
  await store.forms.create({ form: written, workspaceId, environment: 'live' });
  const template = submission(formId, '2031-01-01T00:00:00.000Z');
  await store.submissions.insert({ submission: template, workspaceId, environment: 'live', searchText: '' });
  // Copies of the template, one a minute, changed when created; the last five changed recently.
  await store.pool.query(
    `INSERT INTO submissions (id, workspace_id, environment, form_id, form_version, status, answers, hidden, visited_steps, score,
       grade, score_breakdown, context, utm_source, started_form_version, scored_at, created_at, updated_at, search_text)
     SELECT 'sub_' || lpad(n::text, 24, '0'), workspace_id, environment, form_id, form_version, status, answers, hidden, visited_steps,
       score, grade, score_breakdown, context, utm_source, started_form_version, scored_at,
       created_at + n * interval '1 minute', CASE WHEN n % 4000 = 0 THEN $2::timestamptz ELSE created_at + n * interval '1 minute' END,
       search_text
     FROM submissions, generate_series(1, 20000) n WHERE id = $1`,
    [template.id, recently],
  );
  await store.pool.query('ANALYZE submissions');
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

/** The plan of every submissions query with an ORDER BY that `list` sends. */
async function plans(filter: SubmissionFilter, order: SubmissionOrder): Promise<string[]> {
  const sent: Array<[string, unknown[]]> = [];
  const query = store.pool.query.bind(store.pool);
  store.pool.query = ((sql: string, values: unknown[]) => {
    if (typeof sql === 'string' && /ORDER BY/.test(sql)) sent.push([sql, values]);
    return query(sql, values);
  }) as typeof store.pool.query;
  try {
    const page = await store.submissions.list(
      { workspaceId, environment: 'live', attachment: { type: 'workspace' } },
      filter,
      { limit: 20 },
      order,
    );
    expect(page.data).toHaveLength(5);
  } finally {
    store.pool.query = query;
  }
  const explained: string[] = [];
  for (const [sql, values] of sent) {
    const { rows } = await query(`EXPLAIN (COSTS OFF) ${sql}`, values);
    explained.push(rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n'));
  }
  return explained;
}

describe('PostgreSQL plans of the submissions list with updated_gte', () => {
  for (const order of [
    { key: 'created_at', direction: 'desc' },
    { key: 'score', direction: 'asc' },
  ] as const) {
    for (const [name, partition] of [
      ['the workspace', () => ({})],
      ['one form', () => ({ formId })],
    ] as const) {
      it(`when few rows of ${name} changed since updated_gte, by ${order.direction === 'desc' ? '-' : ''}${order.key}, then the updated_at index reads only them`, async () => {
        const shapes = await plans({ ...partition(), updatedGte: recently }, order);
        expect(shapes).toHaveLength(1);
        expect(shapes[0]).toMatch(/Index (Only )?Scan using submissions_(form_)?updated|Bitmap Index Scan on submissions_(form_)?updated/);
      });
    }
  }
});
