/**
 * Strong entity tags (RFC 9110) of the resources clients edit concurrently: forms and integrations.
 *
 * The tag is a hash of the representation itself, its keys sorted, rather than a revision counter: it changes
 * exactly when what a GET shows changes, whichever code path made the change (an update, a transfer, the
 * service disabling a failing integration), including paths added later, and a write that changes nothing the
 * client sees (a webhook attempt moving the circuit breaker's counters) does not make the client's tag stale.
 * The store computes the same tag inside its transaction to compare-and-set, so a check and its write are one
 * atomic step. 132 bits of SHA-256 make a collision between two states of one resource out of reach.
 */
import { createHash } from 'node:crypto';

const sortedKeys = (_key: string, value: unknown): unknown =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, (value as Record<string, unknown>)[key]]),
      )
    : value;

/** The quoted strong tag, as the `ETag` header carries it: `"<22 base64url characters>"`. */
export function entityTagOf(representation: object): string {
  const digest = createHash('sha256').update(JSON.stringify(representation, sortedKeys)).digest('base64url');
  return `"${digest.slice(0, 22)}"`;
}
