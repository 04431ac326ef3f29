import * as events from '../../domain/event-feed/service.js';
import { listBody, pageOf } from './pagination.js';
import type { Handler } from './types.js';

export const listEvents: Handler<'listEvents'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(
    events.listEvents(
      services,
      principal,
      { types: query.type, createdGte: query.created_gte, createdLt: query.created_lt },
      pageOf(query),
    ),
  ),
});

export const getEvent: Handler<'getEvent'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await events.getEvent(services, principal, params.id),
});
