/**
 * A JSON column as either store returns it: SQLite hands back the text, PostgreSQL's JSONB arrives parsed.
 * Only text is parsed, so a mapper reads both the same way.
 */
export const fromJson = <T>(value: unknown): T => (typeof value === 'string' ? (JSON.parse(value) as T) : (value as T));

/** A flag column: SQLite stores 0/1, PostgreSQL a BOOLEAN. */
export const fromFlag = (value: number | boolean): boolean => value === true || value === 1;
