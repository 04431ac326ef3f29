/**
 * The condition that a row's `metadata` (JSON text) holds one pair exactly: bind the key, then the value. A key is
 * compared as a value, never spliced into a JSON path, so any key the document allows is safe.
 */
export const metadataHolds = (alias: string): string =>
  `EXISTS (SELECT 1 FROM json_each(${alias}.metadata) m WHERE m.key = ? AND m.value = ?)`;
