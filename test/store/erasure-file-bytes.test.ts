/**
 * An erasure on the SQLite store zeroes what it deletes: deleted rows would otherwise stay in the pages' free space
 * until reused, where anyone holding the file (a backup, a copied volume) could read them. The rows here fit on
 * pages that no insert had to split: a split leaves older copies of moved rows behind, which only a VACUUM (or
 * secure_delete for every write) removes; docs/operating/privacy.md says so.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { form as definition, email, shortText } from '../domain/fixtures.js';
import { at, audit, form, submission, workspace } from './conformance/fixtures.js';

describe('erasure on the SQLite store', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'form-funnel-erasure-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("when a person's submissions are erased and the file checkpointed, then neither the database file nor its log holds the answers it deleted", async () => {
    const file = join(dir, 'form-funnel.db');
    const store = createSqliteStore(file, { backgroundCheckpoints: false });
    const workspaceId = await workspace(store);
    const record = {
      ...form('contact'),
      ...definition([{ id: 'start', title: 'Start', fields: [email('work_email'), shortText('note')] }]),
    };
    await store.forms.create({ form: record, workspaceId, environment: 'live' });
    const marker = 'uma.quist.erasure.marker';
    for (let index = 0; index < 3; index++) {
      const answers = { work_email: `${marker}@example.org`, note: `${marker} note ${index}` };
      await store.submissions.insert({
        submission: { ...submission(record.id, at(10 + index)), answers },
        workspaceId,
        environment: 'live',
      });
      // Someone else's, on the same pages.
      const other = { work_email: `other${index}@example.org`, note: 'kept' };
      await store.submissions.insert({
        submission: { ...submission(record.id, at(10 + index)), answers: other },
        workspaceId,
        environment: 'live',
      });
    }
    const bytes = () => {
      store.db.pragma('wal_checkpoint(TRUNCATE)');
      return [file, `${file}-wal`].map((path) => readFileSync(path, { flag: 'r' }).toString('latin1')).join('');
    };
    // The test can see the answers where they are.
    expect(bytes()).toContain(marker);

    const erased = await store.submissions.erase({ workspaceId, environment: 'live' }, `${marker}@example.org`, () =>
      audit(workspaceId, 'submissions.erased'),
    );

    expect(erased.deletedSubmissions).toBe(3);
    expect(bytes()).not.toContain(marker);
    expect(bytes()).toContain('other2@example.org');
    await store.close();
  });
});
