/**
 * Walks a list operation to its end, a small page at a time, as a partner's sync job would: every page must
 * conform, no object may appear twice, `has_more` must be false only on the last page and no page may be longer
 * than asked for.
 */
import type { CallOptions, Session } from './session.js';

const pageSize = 2;
/** A list that has not ended after this many pages is taken for one whose cursor does not move. */
const maxPages = 200;

export async function walkList(
  session: Session,
  operationId: string,
  options: CallOptions = {},
): Promise<Array<Record<string, unknown>> | undefined> {
  const operation = session.contract.operation(operationId);
  const paged = operation.parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'starting_after');
  const items: Array<Record<string, unknown>> = [];
  const seen = new Set<unknown>();
  let startingAfter: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const query = paged ? { ...options.query, limit: pageSize, starting_after: startingAfter } : options.query;
    const exchange = await session.call(
      operationId,
      { ...options, query },
      { status: [200], check: 'positive_data_acceptance', what: 'a page of the list' },
    );
    if (!exchange) return undefined;
    const body = exchange.json as { data?: Array<Record<string, unknown>>; has_more?: boolean };
    if (!Array.isArray(body?.data)) return undefined; // the schema check has said why
    if (!paged) return body.data;
    session.ran(operationId, 'pagination');
    const where = `${operation.method.toUpperCase()} ${operation.path} page ${page + 1}`;
    if (body.data.length > pageSize)
      session.fail(operationId, 'pagination', where, `${body.data.length} objects on a page of limit ${pageSize}`);
    for (const item of body.data) {
      if (seen.has(item.id)) session.fail(operationId, 'pagination', where, `${String(item.id)} appears on two pages`);
      seen.add(item.id);
      items.push(item);
    }
    if (!body.has_more) return items;
    const last = body.data.at(-1)?.id;
    if (typeof last !== 'string') {
      session.fail(operationId, 'pagination', where, 'has_more is true on a page without objects to continue after');
      return items;
    }
    startingAfter = last;
  }
  session.fail(operationId, 'pagination', operation.path, `still has_more after ${maxPages} pages of ${pageSize}`);
  return items;
}

/** Records whether an object the run made is in the walked list (it must be, right after it was made). */
export function expectListed(
  session: Session,
  operationId: string,
  items: Array<Record<string, unknown>> | undefined,
  id: string | undefined,
): void {
  if (!items || !id) return;
  session.ran(operationId, 'ensure_resource_availability');
  if (!items.some((item) => item.id === id)) {
    session.fail(
      operationId,
      'ensure_resource_availability',
      session.contract.operation(operationId).path,
      `${id}, just made, is not in the list`,
    );
  }
}
