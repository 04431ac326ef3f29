/** The shapes every store shares: a keyset page request, a page, and what an API key is attached to. */
import type { Schema } from '../contract.js';

export interface PageRequest {
  limit: number;
  startingAfter?: string | undefined;
  endingBefore?: string | undefined;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

export type Attachment = Schema<'ApiKeyAttachment'>;
