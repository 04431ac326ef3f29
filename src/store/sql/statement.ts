/**
 * One SQL text for both stores. A statement that reads the same on SQLite and PostgreSQL is written once, with
 * named parameters (`:workspaceId`), and compiled when its module loads:
 * - SQLite keeps the text as written: better-sqlite3 binds `:name` parameters from an object itself, and the
 *   store's statement cache prepares the text once per connection, as before.
 * - PostgreSQL gets `$1`, `$2`… in order of first use (a name used twice keeps its number), and the values in
 *   that order from the same object.
 * Real differences between the dialects stay visible in each store; the one helper here is a row lock that only
 * PostgreSQL takes (SQLite lets one writer at a time into a database file, so its transactions need none).
 */

type Characters<Text extends string, Found extends string = never> = Text extends `${infer First}${infer Rest}`
  ? Characters<Rest, Found | First>
  : Found;
type NameStart = Characters<'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_'>;
type NameCharacter = NameStart | Characters<'0123456789'>;

/** The parameter name at the start of `Text` ('' when there is none), as `parameterPattern` reads it. */
type LeadingName<Text extends string, Name extends string = ''> = Text extends `${infer First}${infer Rest}`
  ? First extends (Name extends '' ? NameStart : NameCharacter)
    ? LeadingName<Rest, `${Name}${First}`>
    : Name
  : Name;

/**
 * The names of the `:name` parameters in a statement's text, read by the type checker the way the compiler below
 * reads them at run time (a `::type` cast is passed over), so that leaving one out is a compile error.
 */
export type ParameterNames<Text extends string> = Record<never, never> extends Record<Text, true> ? UncheckedText : NamesIn<Text>;

/**
 * The one "parameter" of a text built at run time, which no call gives, so that using it is a compile error. (A
 * record keyed by such a text, `string` or a template with a `${string}` hole, is an index signature that an empty object
 * satisfies; keyed by a literal text, it has a property that an empty object lacks.)
 */
type UncheckedText = 'a shared statement is a literal text, so that its parameters can be checked';

type NamesIn<Text extends string, Found extends string = never> = Text extends `${string}:${infer Rest}`
  ? Rest extends `:${infer AfterCast}`
    ? NamesIn<AfterCast, Found>
    : NamesIn<Rest, Found | LeadingName<Rest>>
  : Exclude<Found, ''>;

/** A value for each of the statement's parameters, by name. */
export type StatementParameters<Name extends string> = { readonly [Key in Name]: unknown };

/** The parameters object a shared statement is bound from. */
export type ParametersOf<Statement> = Statement extends SharedStatement<infer Name> ? StatementParameters<Name> : never;

export interface SharedStatement<Name extends string> {
  /** The text for better-sqlite3, which binds the `:name` parameters from an object. */
  readonly sqlite: string;
  /** The text for node-postgres, with `$n` placeholders. */
  readonly postgres: string;
  /** The parameter names in the order of PostgreSQL's placeholders. */
  readonly postgresNames: readonly Name[];
  /** The arguments node-postgres takes for the statement: its text and the values in placeholder order. */
  bindPostgres(params: StatementParameters<Name>): [sql: string, values: unknown[]];
}

export interface Dialect {
  /**
   * A locking clause appended on PostgreSQL only (`FOR UPDATE`, `FOR SHARE`, `FOR UPDATE OF c`); a comment at the
   * statement says what the lock holds off.
   */
  postgresLock?: `FOR ${'UPDATE' | 'SHARE' | 'NO KEY UPDATE' | 'KEY SHARE'}${'' | ` OF ${string}`}`;
}

/** `::` first, so that a cast is consumed whole and its type is not read as a parameter. */
const parameterPattern = /::|:([A-Za-z_][A-Za-z0-9_]*)/g;
const quotedText = /'(?:[^']|'')*'/g;

/** Compiles a statement written with `:name` parameters for both stores (see the top of this file). */
export function shared<const Text extends string>(text: Text, dialect: Dialect = {}): SharedStatement<ParameterNames<Text>> {
  // A colon inside a quoted literal would be read as a parameter, on either store: such a text is not shared.
  for (const [literal] of text.matchAll(quotedText))
    if (literal.includes(':')) throw new Error(`A shared statement cannot quote a colon: ${literal}`);
  if (text.includes('?') || /\$\d/.test(text)) throw new Error('A shared statement names its parameters (:name), never ? or $n');
  const names: string[] = [];
  const compiled = text.replace(parameterPattern, (match, name: string | undefined) => {
    if (name === undefined) return match;
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  const postgres = dialect.postgresLock === undefined ? compiled : `${compiled} ${dialect.postgresLock}`;
  const postgresNames = names as ParameterNames<Text>[];
  return {
    sqlite: text,
    postgres,
    postgresNames,
    bindPostgres: (params) => [postgres, postgresNames.map((name) => params[name])],
  };
}
