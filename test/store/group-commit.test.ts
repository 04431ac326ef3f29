/**
 * Group commit (src/store/sqlite/group-commit.ts): changes queued in one turn of the event loop share a
 * transaction, and each still succeeds or fails on its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { type GroupCommit, groupCommit, maxGroupSize } from '../../src/store/sqlite/group-commit.js';

let db: Database.Database;
let grouped: GroupCommit;
const insert = (id: number, note = 'x') => db.prepare('INSERT INTO item (id, note) VALUES (?, ?)').run(id, note);
const ids = () => (db.prepare('SELECT id FROM item ORDER BY id').all() as Array<{ id: number }>).map((row) => row.id);

beforeEach(() => {
  db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  db.exec(`CREATE TABLE item (id INTEGER PRIMARY KEY, note TEXT NOT NULL);
           CREATE TABLE child (id INTEGER PRIMARY KEY, item_id INTEGER REFERENCES item(id) DEFERRABLE INITIALLY DEFERRED)`);
  grouped = groupCommit(db);
});

describe('group commit', () => {
  it('when changes are queued together, then they commit in one transaction and each gets its own result', async () => {
    // A second connection to the same file sees only committed rows: while the third change runs, none.
    const dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
    db = new Database(join(dir, 'items.db'));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE item (id INTEGER PRIMARY KEY, note TEXT NOT NULL)');
    grouped = groupCommit(db);
    const reader = new Database(join(dir, 'items.db'), { readonly: true });
    const committedRows = () => (reader.prepare('SELECT count(*) AS n FROM item').get() as { n: number }).n;
    const seenByReader: number[] = [];
    const change = (id: number) => () => {
      insert(id);
      seenByReader.push(committedRows());
      return id * 10;
    };
    const results = await Promise.all([1, 2, 3].map((id) => grouped.run(change(id))));
    expect(results).toEqual([10, 20, 30]);
    expect(seenByReader).toEqual([0, 0, 0]);
    expect(committedRows()).toBe(3);
    reader.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when one change throws after writing, then its writes are undone, it alone rejects, and the others commit', async () => {
    const outcomes = await Promise.allSettled([
      grouped.run(() => insert(1)),
      grouped.run(() => {
        insert(2, 'written before the failure');
        insert(1); // the first change's row
      }),
      grouped.run(() => insert(3)),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
    expect(ids()).toEqual([1, 3]);
  });

  it('when every change of a group succeeds, then each runs once; when one fails, the group runs again change by change and the others commit', async () => {
    const runs = new Map<number, number>();
    const counted = (id: number, write: () => unknown) => () => {
      runs.set(id, (runs.get(id) ?? 0) + 1);
      write();
      return id;
    };
    await Promise.all([1, 2, 3].map((id) => grouped.run(counted(id, () => insert(id)))));
    expect([...runs]).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
    ]);

    runs.clear();
    const kept: number[] = [];
    const outcomes = await Promise.allSettled([
      grouped.run(
        counted(4, () => insert(4)),
        (id) => kept.push(id),
      ),
      grouped.run(
        counted(5, () => insert(1)),
        (id) => kept.push(id),
      ), // an existing id
      grouped.run(
        counted(6, () => insert(6)),
        (id) => kept.push(id),
      ),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // The group's run together stopped at the failure and was undone whole (the change after it had not run);
    // then each ran in its own savepoint.
    expect([...runs]).toEqual([
      [4, 2],
      [5, 2],
      [6, 1],
    ]);
    expect(kept).toEqual([4, 6]);
    expect(ids()).toEqual([1, 2, 3, 4, 6]);
  });

  it('when a change queued alone fails, then it runs once; a change that returns a promise is refused in a group as alone', async () => {
    let runs = 0;
    await expect(
      grouped.run(() => {
        runs++;
        insert(1);
        insert(1);
      }),
    ).rejects.toThrow(/UNIQUE constraint failed/);
    expect(runs).toBe(1);

    const asynchronous = () => {
      insert(7);
      return Promise.resolve(7);
    };
    const alone = await Promise.allSettled([grouped.run(asynchronous)]);
    const together = await Promise.allSettled([grouped.run(() => insert(8)), grouped.run(asynchronous)]);
    expect(alone.map((outcome) => outcome.status)).toEqual(['rejected']);
    expect(together.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
    expect(String((together[1] as PromiseRejectedResult).reason)).toMatch(/promise/);
    expect(ids()).toEqual([8]);
  });

  it('when the commit itself fails, then every change of the group rejects with its error and none is kept', async () => {
    // A deferred foreign key is checked at COMMIT, after every change of the group has run.
    const outcomes = await Promise.allSettled([
      grouped.run(() => insert(1)),
      grouped.run(() => db.prepare('INSERT INTO child (id, item_id) VALUES (1, 99)').run()),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    for (const outcome of outcomes) expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY constraint failed/);
    expect(ids()).toEqual([]);
    expect(db.inTransaction).toBe(false);
    // The next group commits normally.
    await grouped.run(() => insert(5));
    expect(ids()).toEqual([5]);
  });

  it('when a change makes SQLite roll back the whole transaction, then the group is abandoned and nothing of it is kept', async () => {
    // RAISE(ROLLBACK) ends the transaction, as a full disk or an I/O error does, not only the change's savepoint:
    // the changes after it must not go on to commit one by one while the group reports failure.
    db.exec(`CREATE TRIGGER abort_all BEFORE INSERT ON item WHEN NEW.note = 'abort' BEGIN SELECT RAISE(ROLLBACK, 'aborted'); END`);
    const outcomes = await Promise.allSettled([
      grouped.run(() => insert(1)),
      grouped.run(() => insert(2, 'abort')),
      grouped.run(() => insert(3)),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/aborted/);
    expect(ids()).toEqual([]);
    expect(db.inTransaction).toBe(false);
    await grouped.run(() => insert(4));
    expect(ids()).toEqual([4]);
  });

  it('when the queue is flushed (the store closing), then every queued change commits at once', async () => {
    const queued = [grouped.run(() => insert(1)), grouped.run(() => insert(2))];
    grouped.flush();
    expect(ids()).toEqual([1, 2]);
    await expect(Promise.all(queued)).resolves.toHaveLength(2);
  });

  it(`when more than ${maxGroupSize} changes are queued, then the loop turns between groups of at most ${maxGroupSize}`, async () => {
    const order: Array<number | 'turn'> = [];
    const all = Array.from({ length: maxGroupSize * 2 + 5 }, (_, index) =>
      grouped.run(() => {
        insert(index);
        order.push(index);
      }),
    );
    setImmediate(() => order.push('turn'));
    await Promise.all(all);
    expect(order.indexOf('turn')).toBe(maxGroupSize);
    expect(ids()).toHaveLength(maxGroupSize * 2 + 5);
  });

  it('when a change is queued alone, then it is committed by the next turn of the loop', async () => {
    const committed = grouped.run(() => insert(7));
    expect(ids()).toEqual([]);
    await committed;
    expect(ids()).toEqual([7]);
  });

  it("when changes succeed or fail, then only the kept ones are recorded for the group's end, which writes once before the commit", async () => {
    const recorded: number[] = [];
    const ends: string[] = [];
    grouped.atEndOfGroup({
      write: () => {
        ends.push(`write ${recorded.join(',')} (rows ${ids().join(',')})`);
        recorded.length = 0;
      },
      discard: () => ends.push('discard'),
    });
    const keep = (id: number) => () => recorded.push(id);
    const outcomes = await Promise.allSettled([
      grouped.run(() => insert(1), keep(1)),
      grouped.run(() => insert(1), keep(2)), // the same id: fails, not kept
      grouped.run(() => insert(3), keep(3)),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(ends).toEqual(['write 1,3 (rows 1,3)']);

    // A group that does not commit: its end is discarded and nothing of it is kept.
    ends.length = 0;
    const failing = grouped.run(() => {
      insert(4);
      db.exec('ROLLBACK'); // as SQLite does on a full disk: the whole transaction is gone
    }, keep(4));
    await expect(failing).rejects.toThrow();
    expect(ends).toEqual(['discard']);
    expect(ids()).toEqual([1, 3]);
  });

  describe('when the group cannot begin because another connection holds the write lock', () => {
    /** A file database whose connection gives up on a lock at once, as SQLite sometimes does despite a busy timeout. */
    function lockedFile() {
      const dir = mkdtempSync(join(tmpdir(), 'group-commit-busy-'));
      db = new Database(join(dir, 'items.db'));
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE item (id INTEGER PRIMARY KEY, note TEXT NOT NULL)');
      db.pragma('busy_timeout = 0');
      const other = new Database(join(dir, 'items.db'));
      other.exec('BEGIN IMMEDIATE');
      const cleanUp = () => {
        if (other.inTransaction) other.exec('ROLLBACK');
        other.close();
        db.close();
        rmSync(dir, { recursive: true, force: true });
      };
      return { other, cleanUp };
    }

    it('then it is tried again without holding the event loop, and commits once the lock is released', async () => {
      const { other, cleanUp } = lockedFile();
      grouped = groupCommit(db, { busyRetryMs: 5_000 });
      const timersMeanwhile: number[] = [];
      const committed = Promise.all([grouped.run(() => insert(1)), grouped.run(() => insert(2))]);
      let settled = false;
      void committed.finally(() => (settled = true));
      for (let turn = 0; turn < 5; turn++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        timersMeanwhile.push(turn);
      }
      expect(settled).toBe(false);
      other.exec('COMMIT');
      await committed;
      expect(timersMeanwhile).toEqual([0, 1, 2, 3, 4]);
      expect(ids()).toEqual([1, 2]);
      cleanUp();
    });

    it('then each change waits for its own window: one queued later still commits after the first gives up', async () => {
      const { other, cleanUp } = lockedFile();
      grouped = groupCommit(db, { busyRetryMs: 100 });
      const first = grouped
        .run(() => insert(1))
        .then(
          () => 'committed',
          (error: { code?: string }) => error.code,
        );
      await new Promise((resolve) => setTimeout(resolve, 60));
      const second = grouped.run(() => insert(2));
      expect(await first).toBe('SQLITE_BUSY');
      other.exec('ROLLBACK');
      await second;
      expect(ids()).toEqual([2]);
      cleanUp();
    });

    it('then a lock held past the retry window rejects the group, and later changes commit', async () => {
      const { other, cleanUp } = lockedFile();
      grouped = groupCommit(db, { busyRetryMs: 50 });
      const refused = await grouped
        .run(() => insert(1))
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect((refused as { code?: string }).code).toBe('SQLITE_BUSY');
      other.exec('ROLLBACK');
      await grouped.run(() => insert(2));
      expect(ids()).toEqual([2]);
      cleanUp();
    });
  });
});
