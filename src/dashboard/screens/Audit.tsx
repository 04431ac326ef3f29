import type { AuditEventList, AuditEventType } from '../../client/schemas.js';
import { unwrap } from '../api.js';
import { auditEventTypes } from '../audit-event-types.js';
import { AdminOnly } from '../components/AdminOnly.js';
import { AuditTable } from '../components/AuditTable.js';
import { Loading } from '../components/Loading.js';
import { Pager } from '../components/Pager.js';
import { ProblemNotice } from '../components/ProblemNotice.js';
import { SelectFilter } from '../components/SelectFilter.js';
import { cursorOfQuery, pagerOf, withCursor, withFilter } from '../keyset.js';
import { route, setQuery } from '../router.js';
import { api, isAdmin } from '../state.js';
import { useResource } from '../use-resource.js';

/** The audit log (`/dashboard/audit`, admins only): newest first, filtered by type (`?type=`), a page at a time. */
export function AuditScreen() {
  return (
    <section aria-labelledby="audit-heading">
      <h1 id="audit-heading">Audit log</h1>
      {isAdmin() ? <AuditLog /> : <AdminOnly what="the audit log" />}
    </section>
  );
}

function AuditLog() {
  const query = route.value.query;
  const type = query.get('type') ?? '';
  const cursor = cursorOfQuery(query);
  const events = useResource(async (): Promise<AuditEventList> => {
    const filter = type ? { type: type as AuditEventType } : {};
    return unwrap(await api().GET('/audit_events', { params: { query: { limit: 25, ...filter, ...cursor } } }));
  }, query.toString());
  return (
    <>
      <div class="settings-filters">
        <SelectFilter
          label="Event type"
          anyLabel="Any event type"
          value={type}
          options={auditEventTypes}
          onChange={(value) => setQuery(withFilter(query, 'type', value))}
        />
      </div>
      <ProblemNotice error={events.error} onRetry={events.reload} />
      {events.loading && !events.data && <Loading what="the audit log" />}
      {events.data && (
        <>
          <AuditTable events={events.data.data} />
          <Pager label="Audit log pages" {...pagerOf(cursor, events.data, (to) => setQuery(withCursor(query, to)))} />
        </>
      )}
    </>
  );
}
