/**
 * The shape of the SQLite plans behind every submissions list: whatever the partition, order, grade filter and
 * cursor, the rows are read from an index in the list's order, never gathered and sorted (a temporary B-tree
 * sorts every match, so a page deep in a million rows would cost the whole list), and after a cursor the index
 * range starts at the cursor row itself. The million-row figures are
 * in `npm run bench`; PostgreSQL chooses plans by statistics, which only a large table has, so its plans are
 * printed by `npm run bench:postgres` instead.
 */
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import type { SubmissionFilter, SubmissionOrder } from '../../src/store/submission-store.js';
import { form, submission, workspace } from './conformance/fixtures.js';

let store: ReturnType<typeof createSqliteStore>;
let workspaceId: string;
let formId: string;
let cursor: string;

beforeAll(async () => {
  store = createSqliteStore(':memory:');
  workspaceId = await workspace(store);
  const written = form('plans');
  formId = written.id;
  await store.forms.create({ form: written, workspaceId, environment: 'live' });
  const row = submission(formId, '2031-01-01T00:00:05.000Z');
  cursor = row.id;
  await store.submissions.insert({ submission: row, workspaceId, environment: 'live', searchText: 'x' });
});
afterAll(() => store.close());

/** The plan of every SELECT on submissions that `list` prepares. */
async function plans(filter: SubmissionFilter, order: SubmissionOrder, startingAfter?: string): Promise<string[]> {
  const db: Database.Database = store.db;
  const prepared: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  }) as typeof db.prepare;
  try {
    await store.submissions.list(
      { workspaceId, environment: 'live', attachment: { type: 'workspace' } },
      filter,
      { limit: 20, startingAfter },
      order,
    );
  } finally {
    db.prepare = prepare;
  }
  return prepared
    .filter((sql) => /ORDER BY/.test(sql))
    .map((sql) => {
      const parameters = (sql.match(/\?/g) ?? []).map(() => null);
      return (prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as Array<{ detail: string }>).map((step) => step.detail).join('; ');
    });
}

const orders: SubmissionOrder[] = [
  { key: 'created_at', direction: 'desc' },
  { key: 'created_at', direction: 'asc' },
  { key: 'score', direction: 'desc' },
  { key: 'score', direction: 'asc' },
];
const filters: Array<[string, () => SubmissionFilter]> = [
  ['the workspace', () => ({})],
  ['one form', () => ({ formId })],
  ['one grade', () => ({ grades: ['B'] })],
  ['two grades', () => ({ grades: ['A', 'B'] })],
  ['one form and one grade', () => ({ formId, grades: ['B'] })],
  [
    'every other filter',
    () => ({
      status: 'completed',
      minScore: 1,
      maxScore: 50,
      search: 'x',
      createdGte: '2031-01-01T00:00:00.000Z',
      createdLt: '2031-01-02T00:00:00.000Z',
    }),
  ],
  [
    'every filter',
    () => ({ formId, grades: ['B'], status: 'completed', minScore: 1, maxScore: 50, createdGte: '2031-01-01T00:00:00.000Z' }),
  ],
];

describe('SQLite plans of the submissions list', () => {
  for (const order of orders) {
    for (const [name, filter] of filters) {
      it(`when listing ${name} by ${order.direction === 'desc' ? '-' : ''}${order.key}, first page and after a cursor, then an index gives the order`, async () => {
        const first = await plans(filter(), order);
        const afterCursor = await plans(filter(), order, cursor);
        expect(first).toHaveLength(1);
        expect(afterCursor).toHaveLength(1);
        for (const shape of [...first, ...afterCursor]) {
          expect(shape).toMatch(/USING (COVERING )?INDEX submissions_/);
          expect(shape).not.toMatch(/TEMP B-TREE/);
        }
        // The range starts at the cursor itself, not at the first row sharing its key.
        expect(afterCursor[0]).toContain(`(${order.key},id)${order.direction === 'desc' ? '<' : '>'}(?,?)`);
      });
    }
  }
});

describe('SQLite plans of the submissions list with updated_gte', () => {
  for (const order of orders) {
    for (const [name, partition] of [
      ['the workspace', {}],
      ['one form', () => ({ formId })],
    ] as const) {
      it(`when few rows of ${name} changed since updated_gte, by ${order.direction === 'desc' ? '-' : ''}${order.key}, then the updated_at index reads only them`, async () => {
        const filter = {
          ...(typeof partition === 'function' ? partition() : partition),
          updatedGte: '2031-01-01T00:00:00.000Z',
          grades: ['B'],
        };
        for (const shape of [...(await plans(filter, order)), ...(await plans(filter, order, cursor))]) {
          // At most changedSinceSortCap rows are sorted (the count is probed through the same index first).
          expect(shape).toMatch(/USING INDEX submissions_(form_)?updated \(.*updated_at>\?\)/);
        }
      });
    }
  }
});
