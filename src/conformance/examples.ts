/**
 * Request bodies built from the document's own examples, so that the kit sends what the reference docs show a
 * partner. The examples name resources that exist only in the docs (`form_2kTz…`): each id is swapped for one the
 * run created, by its prefix, and a value that must be unique (a slug, an email) gets the run's suffix.
 */
import { randomBytes } from 'node:crypto';
import type { ConformanceContract } from './contract.js';

/** Ends what a run creates, so that two runs against the same server do not collide on unique values. */
export const newRunSuffix = () => randomBytes(4).toString('hex');

const idShape = /^([a-z]{2,4})_[0-9A-Za-z]{24}$/;

/** A copy of the operation's example (by name, or its first), with ids of the given prefixes replaced. */
export function exampleBody(
  contract: ConformanceContract,
  operationId: string,
  ids: Record<string, string | undefined> = {},
  name?: string,
): Record<string, unknown> {
  const examples = contract.operation(operationId).requestExamples;
  const value = name ? examples[name] : Object.values(examples)[0];
  if (value === undefined) throw new Error(`${operationId} documents no request example${name ? ` named ${name}` : ''}.`);
  return substituteIds(structuredClone(value), ids) as Record<string, unknown>;
}

function substituteIds(value: unknown, ids: Record<string, string | undefined>): unknown {
  if (typeof value === 'string') {
    const prefix = idShape.exec(value)?.[1];
    return (prefix && ids[prefix]) || value;
  }
  if (Array.isArray(value)) return value.map((item) => substituteIds(item, ids));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteIds(item, ids)]));
  }
  return value;
}

/** `ana@example.com` → `ana+conformance-1a2b3c4d@example.com`: unique per run, still an address of the same domain. */
export const uniqueEmail = (email: string, suffix: string) => email.replace('@', `+conformance-${suffix}@`).toLowerCase();
