/**
 * Submission reads name their columns (`submissionRowColumns`) instead of `*`, so that a page of the list does not
 * decode each row's search text. A column added to the table must then be added to the list, or reads would drop
 * it without an error: this keeps the list and the table in step on both stores.
 */
import { describe, expect, it } from 'vitest';
import { submissionRowColumns } from '../../src/store/rows/submissions.js';
import { createTestStore, storedRows, storeKinds } from '../support/stores.js';

/** Only the search reads it, one window at a time (search-scan.ts). */
const searchOnly = ['search_text'];

describe.each(storeKinds)('the %s store', (kind) => {
  it('when a submission is read, then every column of the table but the search text is read', async () => {
    const store = await createTestStore(kind);
    try {
      const sql =
        kind === 'sqlite'
          ? 'SELECT name FROM pragma_table_info(?)'
          : 'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?';
      const tableColumns = (await storedRows(store, sql, 'submissions')).map((row) => String(row.name));
      expect(tableColumns).toEqual(expect.arrayContaining(searchOnly));
      expect(submissionRowColumns().split(', ').sort()).toEqual(tableColumns.filter((name) => !searchOnly.includes(name)).sort());
      expect(
        submissionRowColumns('s')
          .split(', ')
          .every((column) => column.startsWith('s.')),
      ).toBe(true);
    } finally {
      await store.close();
    }
  });
});
