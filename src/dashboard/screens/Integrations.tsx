import { useState } from 'preact/hooks';
import type { Integration } from '../../client/schemas.js';
import { unwrap } from '../api.js';
import { type IntegrationFields, IntegrationForm } from '../components/IntegrationForm.js';
import { IntegrationTable } from '../components/IntegrationTable.js';
import { Link } from '../components/Link.js';
import { Loading } from '../components/Loading.js';
import { Pager } from '../components/Pager.js';
import { ProblemNotice } from '../components/ProblemNotice.js';
import { SecretOnce } from '../components/SecretOnce.js';
import { cursorOfQuery, pagerOf, withCursor } from '../keyset.js';
import { loadForms } from '../load-forms.js';
import { route, setQuery } from '../router.js';
import { api, canEdit } from '../state.js';
import { useResource } from '../use-resource.js';
import { IntegrationScreen } from './Integration.js';

/**
 * Webhook integrations (`/dashboard/integrations`): the list, newest first, and a new one, whose signing secret the
 * API returns once. `integrations/<id>` is one integration (IntegrationScreen).
 */
export function IntegrationsScreen() {
  const id = route.value.segments[1];
  return id ? <IntegrationScreen key={id} id={id} /> : <IntegrationList />;
}

function IntegrationList() {
  const query = route.value.query;
  const cursor = cursorOfQuery(query);
  const list = useResource(
    async () => unwrap(await api().GET('/integrations', { params: { query: { limit: 20, ...cursor } } })),
    JSON.stringify(cursor),
  );
  const forms = useResource(loadForms, 'forms');
  const [created, setCreated] = useState<(Integration & { signing_secret: string }) | undefined>(undefined);

  const create = async (fields: IntegrationFields) => {
    const body = {
      type: 'webhook' as const,
      ...fields,
      description: fields.description ?? undefined,
      form_id: fields.form_id ?? undefined,
    };
    setCreated(unwrap(await api().POST('/integrations', { body })));
    // The new one is first in the list: back to the first page, or read the first page again.
    if (cursor.starting_after || cursor.ending_before) setQuery(withCursor(query, {}));
    else list.reload();
  };

  return (
    <section aria-labelledby="integrations-heading">
      <h1 id="integrations-heading">Integrations</h1>
      <p class="muted">Webhooks: each integration POSTs the events it subscribes to to its endpoint, signed with its secret.</p>
      {created && (
        <>
          <SecretOnce label="Signing secret" secret={created.signing_secret} onDone={() => setCreated(undefined)} />
          <p role="status">
            Integration created: <Link to={`integrations/${created.id}`}>{created.url}</Link>
          </p>
        </>
      )}
      <ProblemNotice error={list.error} onRetry={list.reload} />
      {list.loading && !list.data && <Loading what="integrations" />}
      {list.data && (
        <>
          <IntegrationTable integrations={list.data.data} />
          <Pager label="Integration pages" {...pagerOf(cursor, list.data, (to) => setQuery(withCursor(query, to)))} />
        </>
      )}
      {canEdit() && (
        <section aria-labelledby="new-integration-heading">
          <h2 id="new-integration-heading">New integration</h2>
          <IntegrationForm forms={forms.data ?? []} submitLabel="Create integration" onSubmit={create} />
        </section>
      )}
    </section>
  );
}
