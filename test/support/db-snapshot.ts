import type Database from 'better-sqlite3';

/**
 * Every row of every table, as sorted JSON text (some tables have no rowid to order by, and only the set of rows
 * matters): what "nothing of the change is visible" is checked against. `ignore` drops columns that move on
 * their own (a key's last use).
 */
export function snapshot(db: Database.Database, ignore: Record<string, string[]> = {}): Record<string, string[]> {
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as Array<{
    name: string;
  }>;
  return Object.fromEntries(
    tables.map(({ name }) => [
      name,
      (db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>)
        .map((row) => JSON.stringify(Object.fromEntries(Object.entries(row).filter(([column]) => !ignore[name]?.includes(column)))))
        .sort(),
    ]),
  );
}
