import type Database from 'better-sqlite3';
import type { EventStore } from '../event-store.js';
import { type EventRow, toEvent } from '../rows/integrations.js';
import { keysetPage } from './pagination.js';
import { statement } from './statements.js';

export function sqliteEvents(db: Database.Database): EventStore {
  return {
    async list({ workspaceId, environment, attachment }, filter, page) {
      const where = ['e.workspace_id = ?', 'e.environment = ?'];
      const params: unknown[] = [workspaceId, environment];
      const add = (condition: string, ...values: unknown[]) => {
        where.push(condition);
        params.push(...values);
      };
      if (attachment.type === 'form') add('e.form_id = ?', attachment.form_id);
      if (attachment.type === 'folder') add('e.form_id IN (SELECT f.id FROM forms f WHERE f.folder_id = ?)', attachment.folder_id);
      if (filter.types !== undefined) add(`e.type IN (${filter.types.map(() => '?').join(', ')})`, ...filter.types);
      if (filter.createdGte !== undefined) add('e.created_at >= ?', filter.createdGte);
      if (filter.createdLt !== undefined) add('e.created_at < ?', filter.createdLt);
      const result = keysetPage<EventRow>(db, { from: 'events e', alias: 'e', select: 'e.*', where: where.join(' AND '), params, page });
      return { data: result.data.map(toEvent), hasMore: result.hasMore };
    },

    async get(workspaceId, environment, id) {
      const row = statement(db, 'SELECT * FROM events WHERE id = ? AND workspace_id = ? AND environment = ?').get(
        id,
        workspaceId,
        environment,
      ) as EventRow | undefined;
      return row && toEvent(row);
    },

    async purgeBefore(before, limit) {
      return statement(
        db,
        `DELETE FROM events WHERE id IN (
           SELECT e.id FROM events e
           WHERE e.created_at < ?
             AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
           ORDER BY e.created_at LIMIT ?
         )`,
      ).run(before, limit).changes;
    },
  };
}
