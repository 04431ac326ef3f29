// The security half of the breaking-change gate (src/cli/breaking.ts). Optic does not look at security
// requirements, and no single direction of change is safe: a loosened scope (`read` on a delete) opens the API
// to keys that should not reach it, a tightened one breaks every client whose key no longer suffices. So any
// change to the security requirement of an operation that both documents have fails the gate, unless the
// reviewed list openapi/baseline/security-changes.yaml acknowledges it: the operation, the requirement before
// and after, and the reason.
import YAML from 'yaml';

type Json = Record<string, unknown>;
/** One security requirement object: scheme name → the scopes (roles) it needs. */
export type SecurityRequirement = Record<string, string[]>;

export interface SecurityChange {
  operationId: string;
  /** "METHOD /path". */
  operation: string;
  before: SecurityRequirement[];
  after: SecurityRequirement[];
}

export interface Acknowledgement {
  operationId: string;
  before: SecurityRequirement[];
  after: SecurityRequirement[];
  reason: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Scopes sorted within each requirement and requirements sorted, so that order alone is no change. */
function normalize(requirements: SecurityRequirement[]): SecurityRequirement[] {
  const sorted = requirements.map((requirement) =>
    Object.fromEntries(
      Object.keys(requirement)
        .sort()
        .map((scheme) => [scheme, [...(requirement[scheme] ?? [])].sort()]),
    ),
  );
  return sorted.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

const same = (a: SecurityRequirement[], b: SecurityRequirement[]) => JSON.stringify(normalize(a)) === JSON.stringify(normalize(b));

/** Each operation's effective requirement (its own `security`, else the document's), by "METHOD /path". */
function requirementsOf(doc: Json): Map<string, { operationId: string; security: SecurityRequirement[] }> {
  const global = Array.isArray(doc.security) ? (doc.security as SecurityRequirement[]) : [];
  const found = new Map<string, { operationId: string; security: SecurityRequirement[] }>();
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const security = Array.isArray(operation.security) ? (operation.security as SecurityRequirement[]) : global;
      found.set(`${method.toUpperCase()} ${path}`, { operationId: String(operation.operationId ?? ''), security });
    }
  }
  return found;
}

/** Operations that both documents have and whose security requirement differs. */
export function securityChanges(base: Json, head: Json): SecurityChange[] {
  const before = requirementsOf(base);
  const changes: SecurityChange[] = [];
  for (const [operation, now] of requirementsOf(head)) {
    const was = before.get(operation);
    if (was && !same(was.security, now.security)) {
      changes.push({ operationId: now.operationId, operation, before: was.security, after: now.security });
    }
  }
  return changes;
}

/** The reviewed list, checked entry by entry: a malformed entry is an error, not a silent pass. */
export function parseAcknowledgements(text: string): Acknowledgement[] {
  const parsed = YAML.parse(text) as unknown;
  const entries = isObject(parsed) ? parsed.acknowledged : undefined;
  if (!Array.isArray(entries)) throw new Error('security-changes: expected a top-level `acknowledged:` list');
  const isRequirements = (value: unknown) =>
    Array.isArray(value) &&
    value.every((requirement) => isObject(requirement) && Object.values(requirement).every((scopes) => Array.isArray(scopes)));
  return entries.map((entry, index) => {
    if (
      !isObject(entry) ||
      typeof entry.operationId !== 'string' ||
      !isRequirements(entry.before) ||
      !isRequirements(entry.after) ||
      typeof entry.reason !== 'string' ||
      entry.reason.trim() === ''
    ) {
      throw new Error(`security-changes: entry ${index + 1} needs operationId, before, after (security requirements) and a reason`);
    }
    return entry as unknown as Acknowledgement;
  });
}

/** The changes that no entry of the list acknowledges (same operation, same requirement before and after). */
export function unacknowledged(changes: SecurityChange[], acknowledgements: Acknowledgement[]): SecurityChange[] {
  return changes.filter(
    (change) =>
      !acknowledgements.some(
        (entry) => entry.operationId === change.operationId && same(entry.before, change.before) && same(entry.after, change.after),
      ),
  );
}

/** `apiKey: read_write, oauth2: read_write` (or `none` for a public operation). */
export function showRequirement(requirements: SecurityRequirement[]): string {
  if (requirements.length === 0) return 'none (public)';
  return requirements
    .map((requirement) =>
      Object.entries(requirement)
        .map(([scheme, scopes]) => `${scheme}: ${scopes.length > 0 ? scopes.join(' ') : '(any scope)'}`)
        .join(' + '),
    )
    .join(' | ');
}
