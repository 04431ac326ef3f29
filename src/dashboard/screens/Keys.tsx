import { useEffect, useState } from 'preact/hooks';
import type { ApiKeyCreate, ApiKeyCreated, Schema } from '../../client/schemas.js';
import { unwrap } from '../api.js';
import { AdminOnly } from '../components/AdminOnly.js';
import { ApiKeyForm } from '../components/ApiKeyForm.js';
import { ApiKeyTable } from '../components/ApiKeyTable.js';
import { Loading } from '../components/Loading.js';
import { Pager } from '../components/Pager.js';
import { ProblemNotice } from '../components/ProblemNotice.js';
import { type PublishableKeyFields, PublishableKeyForm } from '../components/PublishableKeyForm.js';
import { PublishableKeyTable } from '../components/PublishableKeyTable.js';
import { SecretOnce } from '../components/SecretOnce.js';
import { SelectFilter } from '../components/SelectFilter.js';
import { type ApiKeyStatus, keyStatusChoices } from '../key-vocabulary.js';
import { type Cursor, pagerOf, withFilter } from '../keyset.js';
import { route, setQuery } from '../router.js';
import { api, environment, isAdmin } from '../state.js';
import { ifMatchOf, type Tagged, tagged } from '../tagged.js';
import { useAction } from '../use-action.js';
import { useResource } from '../use-resource.js';

type PublishableKey = Schema<'PublishableKey'>;

/**
 * Keys (`/dashboard/keys`, admins only): the secret API keys of both environments (filtered by `?status=`), to
 * create (the secret shown once) or revoke, and the publishable keys web pages use, to create, rename, give other
 * allowed origins, or revoke.
 */
export function KeysScreen() {
  return (
    <section aria-labelledby="keys-heading">
      <h1 id="keys-heading">API keys</h1>
      {isAdmin() ? (
        <>
          <ApiKeys />
          <PublishableKeys />
        </>
      ) : (
        <AdminOnly what="and manage API keys" />
      )}
    </section>
  );
}

function ApiKeys() {
  const query = route.value.query;
  const status = query.get('status') ?? '';
  const [cursor, setCursor] = useState<Cursor>({});
  const keys = useResource(
    async () => {
      const filter = status ? { status: status as ApiKeyStatus } : {};
      return unwrap(await api().GET('/api_keys', { params: { query: { limit: 50, ...filter, ...cursor } } }));
    },
    `${status}:${JSON.stringify(cursor)}`,
  );
  const [created, setCreated] = useState<ApiKeyCreated | undefined>(undefined);
  const create = async (body: ApiKeyCreate) => {
    setCreated(unwrap(await api().POST('/api_keys', { body })));
    if (cursor.starting_after || cursor.ending_before) setCursor({});
    else keys.reload();
  };
  return (
    <section aria-labelledby="api-keys-heading">
      <h2 id="api-keys-heading">Secret API keys</h2>
      <p class="muted">For servers and integrations: each request sends one as its bearer token.</p>
      {created && <SecretOnce label={`Secret of ${created.name}`} secret={created.secret} onDone={() => setCreated(undefined)} />}
      <div class="settings-filters">
        <SelectFilter
          label="Status"
          anyLabel="Any status"
          value={status}
          options={keyStatusChoices}
          onChange={(value) => {
            setCursor({});
            setQuery(withFilter(query, 'status', value));
          }}
        />
      </div>
      <ProblemNotice error={keys.error} onRetry={keys.reload} />
      {keys.loading && !keys.data && <Loading what="API keys" />}
      {keys.data && (
        <>
          <ApiKeyTable
            keys={keys.data.data}
            onRevoke={async (key) => {
              unwrap(await api().DELETE('/api_keys/{id}', { params: { path: { id: key.id } } }));
              keys.reload();
            }}
          />
          <Pager label="API key pages" {...pagerOf(cursor, keys.data, setCursor)} />
        </>
      )}
      <section aria-labelledby="new-api-key-heading">
        <h3 id="new-api-key-heading">New API key</h3>
        <ApiKeyForm environment={environment.value} onCreate={create} />
      </section>
    </section>
  );
}

function PublishableKeys() {
  const [cursor, setCursor] = useState<Cursor>({});
  const keys = useResource(
    async () => unwrap(await api().GET('/publishable_keys', { params: { query: { limit: 50, ...cursor } } })),
    JSON.stringify(cursor),
  );
  const [editing, setEditing] = useState<Tagged<PublishableKey> | undefined>(undefined);
  const [said, setSaid] = useState('');
  const opening = useAction();
  const read = async (id: string) => setEditing(tagged(await api().GET('/publishable_keys/{id}', { params: { path: { id } } })));
  // Opening the edit form moves focus to it (the form appears below the table, out of sight on a phone).
  const editingId = editing?.object.id;
  useEffect(() => {
    if (editingId) document.getElementById('edit-publishable-key-heading')?.focus();
  }, [editingId]);
  const reloadList = () => (cursor.starting_after || cursor.ending_before ? setCursor({}) : keys.reload());

  const create = async (fields: PublishableKeyFields) => {
    const created = unwrap(await api().POST('/publishable_keys', { body: { ...fields, attachment: { type: 'workspace' } } }));
    setSaid(`Publishable key ${created.name} created.`);
    reloadList();
  };
  const update = async (fields: PublishableKeyFields) => {
    if (!editing) return;
    const path = { id: editing.object.id };
    const body = { name: fields.name, allowed_origins: fields.allowed_origins };
    const updated = unwrap(await api().PATCH('/publishable_keys/{id}', { params: { path, header: ifMatchOf(editing) }, body }));
    setEditing(undefined);
    setSaid(`Publishable key ${updated.name} saved.`);
    keys.reload();
  };

  return (
    <section aria-labelledby="publishable-keys-heading">
      <h2 id="publishable-keys-heading">Publishable keys</h2>
      <p class="muted">For web pages: a publishable key can only show forms and submit to them, from the origins it allows.</p>
      <p role="status">{said}</p>
      <ProblemNotice error={keys.error} onRetry={keys.reload} />
      <ProblemNotice error={opening.error} />
      {keys.loading && !keys.data && <Loading what="publishable keys" />}
      {keys.data && (
        <>
          <PublishableKeyTable
            keys={keys.data.data}
            onEdit={(key) => {
              setSaid('');
              void opening.run(() => read(key.id));
            }}
            onRevoke={async (key) => {
              unwrap(await api().DELETE('/publishable_keys/{id}', { params: { path: { id: key.id } } }));
              setSaid(`Publishable key ${key.name} revoked.`);
              keys.reload();
            }}
          />
          <Pager label="Publishable key pages" {...pagerOf(cursor, keys.data, setCursor)} />
        </>
      )}
      {editing && (
        <section aria-labelledby="edit-publishable-key-heading">
          <h3 id="edit-publishable-key-heading" tabIndex={-1}>
            Edit {editing.object.name}
          </h3>
          <PublishableKeyForm
            key={editing.object.id}
            publishableKey={editing.object}
            environment={editing.object.environment}
            submitLabel="Save key"
            onSubmit={update}
            onCancel={() => setEditing(undefined)}
            onReload={() => void opening.run(() => read(editing.object.id))}
          />
        </section>
      )}
      <section aria-labelledby="new-publishable-key-heading">
        <h3 id="new-publishable-key-heading">New publishable key</h3>
        <PublishableKeyForm environment={environment.value} submitLabel="Create publishable key" onSubmit={create} />
      </section>
    </section>
  );
}
