/**
 * How every store reports a write it cannot make. A lookup that finds nothing returns `undefined`; any other
 * outcome the caller must react to is thrown as one of these classes, and nothing was changed. The domain
 * switches on them and decides what the client is told, so a store never shapes an API error and a second
 * implementation needs nothing from the layers above.
 */

/** The rule that refused a write: a uniqueness constraint or the state the record was in. */
export type ConflictReason =
  /** The workspace already has a form with this slug. */
  | 'slug_taken'
  /** The folder still holds forms. */
  | 'folder_not_empty'
  /** The member is the workspace's only admin. */
  | 'last_admin'
  /** The email is already a member or has a pending invite. */
  | 'member_exists'
  /** The one-time link was used already, has expired, or is not the invite's. */
  | 'link_spent'
  /** The invite is no longer pending: accepted, revoked or expired. */
  | 'invite_closed'
  /** The passkey's credential id is registered already. */
  | 'passkey_exists'
  /** The publishable key is revoked: a revoked key is not changed. */
  | 'key_revoked'
  /** The OAuth grant was revoked before the tokens could be stored. */
  | 'grant_revoked'
  /** The refresh token was rotated or revoked by a concurrent use. */
  | 'token_spent'
  /**
   * The record is no longer in the state the caller read (its entity tag differs): another write came between
   * the read and this write, which was not made.
   */
  | 'changed_since_read'
  /** The Idempotency-Key claim a change was to complete is no longer in progress: another request took it over. */
  | 'idempotency_claim_lost';

export type RecordKind = 'folder' | 'form' | 'integration' | 'member' | 'publishable_key' | 'submission' | 'workspace';

export type CursorParameter = 'starting_after' | 'ending_before';

export abstract class StoreError extends Error {}

export class StoreConflict extends StoreError {
  constructor(readonly reason: ConflictReason) {
    super(`The store refused the write: ${reason}.`);
    this.name = 'StoreConflict';
  }
}

/** The record a write addresses no longer exists (deleted between the caller's read and its write). */
export class RecordNotFound extends StoreError {
  constructor(
    readonly kind: RecordKind,
    readonly id: string,
  ) {
    super(`No ${kind} ${id} exists.`);
    this.name = 'RecordNotFound';
  }
}

/**
 * A record the write files its row under no longer exists: the folder a form is put in was deleted between the
 * caller's check and the write (its foreign key refused the row). Nothing was written.
 */
export class ReferenceMissing extends StoreError {
  constructor(
    readonly kind: 'folder',
    readonly id: string,
  ) {
    super(`No ${kind} ${id} exists to refer to.`);
    this.name = 'ReferenceMissing';
  }
}

/** A keyset cursor that names no row of the list being read (another list's, another workspace's, or a deleted one). */
export class InvalidCursor extends StoreError {
  constructor(readonly parameter: CursorParameter) {
    super(`${parameter} names no row of this list.`);
    this.name = 'InvalidCursor';
  }
}

/** A text search read its cap of rows without one match (`search-scan.ts`): there is no page to answer with. */
export class SearchTooBroad extends StoreError {
  constructor(readonly scanned: number) {
    super(`The search read ${scanned} rows without a match.`);
    this.name = 'SearchTooBroad';
  }
}

export const isStoreConflict = (error: unknown, reason: ConflictReason): error is StoreConflict =>
  error instanceof StoreConflict && error.reason === reason;

/**
 * The store cannot answer now but may shortly: its database connection was lost or could not be made, or a
 * transaction kept colliding with others (serialization failures, deadlocks) after every retry. Unlike the
 * refusals above, a write that met a lost connection may or may not have been made (the connection can drop
 * while COMMIT is on its way), so a caller that retries a write should make it safe to repeat.
 */
export class StoreUnavailable extends StoreError {
  constructor(
    readonly reason: 'connection_lost' | 'contention',
    options?: { cause?: unknown },
  ) {
    super(
      reason === 'connection_lost' ? 'The database connection was lost or refused.' : 'The transaction kept colliding with others.',
      options,
    );
    this.name = 'StoreUnavailable';
  }
}
