import { badRequest } from '../../domain/errors.js';
import type { Page, PageRequest } from '../../store/types.js';
import { defaultPageSize } from '../documented-limits.js';

interface PageQuery {
  limit?: number;
  starting_after?: string;
  ending_before?: string;
}

/** `starting_after` and `ending_before` are mutually exclusive (a schema cannot say so for parameters). */
export function pageOf(query: PageQuery): PageRequest {
  if (query.starting_after !== undefined && query.ending_before !== undefined) {
    throw badRequest('invalid_parameters', 'Use starting_after or ending_before, not both.', [
      { location: 'query', pointer: '/ending_before', code: 'mutually_exclusive', message: 'cannot be combined with starting_after' },
    ]);
  }
  return { limit: query.limit ?? defaultPageSize, startingAfter: query.starting_after, endingBefore: query.ending_before };
}

export const listBody = <T>(page: Page<T>) => ({ object: 'list' as const, data: page.data, has_more: page.hasMore });
