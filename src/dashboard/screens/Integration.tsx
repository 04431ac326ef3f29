import { useState } from 'preact/hooks';
import type { IntegrationLog } from '../../client/schemas.js';
import { unwrap } from '../api.js';
import { DeliveryLog } from '../components/DeliveryLog.js';
import { IntegrationActions } from '../components/IntegrationActions.js';
import { IntegrationDetails } from '../components/IntegrationDetails.js';
import { type IntegrationFields, IntegrationForm } from '../components/IntegrationForm.js';
import { Link } from '../components/Link.js';
import { Loading } from '../components/Loading.js';
import { Pager } from '../components/Pager.js';
import { ProblemNotice } from '../components/ProblemNotice.js';
import { SecretOnce } from '../components/SecretOnce.js';
import { SelectFilter } from '../components/SelectFilter.js';
import { type DeliveryStatus, deliveryStatusWords, eventTypes } from '../integration-vocabulary.js';
import { cursorOfQuery, pagerOf, withCursor, withFilter } from '../keyset.js';
import { loadForms } from '../load-forms.js';
import { navigate, route, setQuery } from '../router.js';
import { api, canEdit } from '../state.js';
import { ifMatchOf, tagged } from '../tagged.js';
import { useResource } from '../use-resource.js';

/**
 * One integration (`/dashboard/integrations/<id>`): its settings, changed with the `ETag` of the last read (someone
 * else's change in between is a 412, not lost), a test event, a sample or a replay, a new signing secret (shown once),
 * and its delivery log, every attempt, filtered as the API offers (`?status=…&event_type=…`).
 */
export function IntegrationScreen(props: { id: string }) {
  const path = { id: props.id };
  const integration = useResource(async () => tagged(await api().GET('/integrations/{id}', { params: { path } })), props.id);
  const query = route.value.query;
  const filters = { status: query.get('status') ?? '', eventType: query.get('event_type') ?? '' };
  const cursor = cursorOfQuery(query);
  const logs = useResource(async () => {
    const filter = {
      ...(filters.status ? { status: filters.status as DeliveryStatus } : {}),
      ...(filters.eventType ? { event_type: filters.eventType as IntegrationLog['event_type'] } : {}),
    };
    return unwrap(await api().GET('/integrations/{id}/logs', { params: { path, query: { limit: 20, ...filter, ...cursor } } }));
  }, `${props.id}?${query}`);
  const forms = useResource(loadForms, 'forms');
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const [queued, setQueued] = useState<IntegrationLog | undefined>(undefined);

  if (!integration.data) {
    return (
      <section aria-labelledby="integration-heading">
        <h1 id="integration-heading">Integration</h1>
        <p>
          <Link to="integrations">All integrations</Link>
        </p>
        <ProblemNotice error={integration.error} onRetry={integration.reload} />
        {integration.loading && <Loading what="the integration" />}
      </section>
    );
  }
  const current = integration.data;

  const update = async (fields: IntegrationFields) => {
    integration.set(tagged(await api().PATCH('/integrations/{id}', { params: { path, header: ifMatchOf(current) }, body: fields })));
  };
  const dispatch = async (body: { type?: IntegrationLog['event_type']; event_id?: string }) => {
    setQueued(unwrap(await api().POST('/integrations/{id}/dispatch', { params: { path }, body })));
    if (cursor.starting_after || cursor.ending_before) setQuery(withCursor(query, {}));
    else logs.reload();
  };
  const rotate = async (seconds: number) => {
    const rotated = tagged(
      await api().POST('/integrations/{id}/rotate_secret', { params: { path }, body: { expire_previous_after: seconds } }),
    );
    setSecret(rotated.object.signing_secret);
    integration.set(rotated);
  };
  const remove = async () => {
    unwrap(await api().DELETE('/integrations/{id}', { params: { path, header: ifMatchOf(current) } }));
    navigate('integrations');
  };

  return (
    <section aria-labelledby="integration-heading">
      <h1 id="integration-heading" class="wrap-anywhere">
        Integration {new URL(current.object.url).host}
      </h1>
      <p>
        <Link to="integrations">All integrations</Link>
      </p>
      {secret && <SecretOnce label="New signing secret" secret={secret} onDone={() => setSecret(undefined)} />}
      <IntegrationDetails integration={current.object} forms={forms.data ?? []} />

      {canEdit() && (
        <>
          <section aria-labelledby="integration-test-heading">
            <h2 id="integration-test-heading">Test and secret</h2>
            {queued && (
              <p role="status">
                Queued <code>{queued.event_type}</code> (event <code>{queued.event_id}</code>): attempt {queued.attempt}, pending.
              </p>
            )}
            <IntegrationActions onPing={() => dispatch({})} onSample={(type) => dispatch({ type })} onRotate={rotate} onDelete={remove} />
          </section>
          <section aria-labelledby="integration-edit-heading">
            <h2 id="integration-edit-heading">Change it</h2>
            <IntegrationForm
              integration={current.object}
              forms={forms.data ?? []}
              submitLabel="Save changes"
              onSubmit={update}
              onReload={integration.reload}
            />
          </section>
        </>
      )}

      <section aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Delivery log</h2>
        <div class="settings-filters">
          <SelectFilter
            label="Status"
            anyLabel="Any status"
            value={filters.status}
            options={Object.entries(deliveryStatusWords).map(([value, label]) => ({ value, label }))}
            onChange={(value) => setQuery(withFilter(query, 'status', value))}
          />
          <SelectFilter
            label="Event type"
            anyLabel="Any event type"
            value={filters.eventType}
            options={eventTypes}
            onChange={(value) => setQuery(withFilter(query, 'event_type', value))}
          />
        </div>
        <div class="actions">
          <button type="button" onClick={logs.reload} disabled={logs.loading}>
            Refresh the log
          </button>
        </div>
        <ProblemNotice error={logs.error} onRetry={logs.reload} />
        {logs.loading && !logs.data && <Loading what="deliveries" />}
        {logs.data && (
          <>
            <DeliveryLog logs={logs.data.data} onReplay={canEdit() ? (eventId) => dispatch({ event_id: eventId }) : undefined} />
            <Pager label="Delivery log pages" {...pagerOf(cursor, logs.data, (to) => setQuery(withCursor(query, to)))} />
          </>
        )}
      </section>
    </section>
  );
}
