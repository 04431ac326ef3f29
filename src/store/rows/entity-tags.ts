import { entityTagOf } from '../../etag.js';
import { type RecordKind, RecordNotFound, StoreConflict } from '../errors.js';

/**
 * The compare of a compare-and-set, run inside the write's transaction on the row it holds (locked on PostgreSQL):
 * without an expected tag nothing is compared; otherwise the row must exist and show the same representation.
 */
export function assertTagUnchanged<Row>(
  row: Row | undefined,
  representation: (row: Row) => object,
  expectedTag: string | undefined,
  record: { kind: RecordKind; id: string },
): void {
  if (expectedTag === undefined) return;
  if (!row) throw new RecordNotFound(record.kind, record.id);
  if (entityTagOf(representation(row)) !== expectedTag) throw new StoreConflict('changed_since_read');
}
