import type pg from 'pg';
import type { EventStore } from '../event-store.js';
import { type EventRow, toEvent } from '../rows/integrations.js';
import { one, Parameters, run } from './database.js';
import { keysetPage } from './pagination.js';

export function postgresEvents(pool: pg.Pool): EventStore {
  return {
    async list({ workspaceId, environment, attachment }, filter, page) {
      const params = new Parameters();
      const where = [`e.workspace_id = ${params.add(workspaceId)}`, `e.environment = ${params.add(environment)}`];
      if (attachment.type === 'form') where.push(`e.form_id = ${params.add(attachment.form_id)}`);
      if (attachment.type === 'folder')
        where.push(`e.form_id IN (SELECT f.id FROM forms f WHERE f.folder_id = ${params.add(attachment.folder_id)})`);
      if (filter.types !== undefined) where.push(`e.type = ANY(${params.add(filter.types)}::text[])`);
      if (filter.createdGte !== undefined) where.push(`e.created_at >= ${params.add(filter.createdGte)}`);
      if (filter.createdLt !== undefined) where.push(`e.created_at < ${params.add(filter.createdLt)}`);
      const result = await keysetPage<EventRow>(pool, {
        from: 'events e',
        alias: 'e',
        select: 'e.*',
        where: where.join(' AND '),
        params,
        page,
      });
      return { data: result.data.map(toEvent), hasMore: result.hasMore };
    },

    async get(workspaceId, environment, id) {
      const row = await one<EventRow>(pool, 'SELECT * FROM events WHERE id = $1 AND workspace_id = $2 AND environment = $3', [
        id,
        workspaceId,
        environment,
      ]);
      return row && toEvent(row);
    },

    async purgeBefore(before, limit) {
      return run(
        pool,
        `DELETE FROM events WHERE id IN (
           SELECT e.id FROM events e
           WHERE e.created_at < $1
             AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
           ORDER BY e.created_at LIMIT $2
         )`,
        [before, limit],
      );
    },
  };
}
