import { useState } from 'preact/hooks';
import type { ApiKeyCreate } from '../../client/schemas.js';
import { type Environment, environmentChoices, type Scope, scopeChoices } from '../key-vocabulary.js';
import { entriesOf, listIssues } from '../list-issues.js';
import { useAction } from '../use-action.js';
import { ChoiceField } from './ChoiceField.js';
import { EntryListField } from './EntryListField.js';
import { ProblemNotice } from './ProblemNotice.js';
import { TextField, uniqueId } from './TextField.js';

/**
 * A new secret API key for the whole workspace: its name, environment, scope, an optional expiry day and the addresses
 * it may be used from. The API makes the secret and returns it once (the screen shows it); what was typed stays when
 * the API refuses it.
 */
export function ApiKeyForm(props: { environment: Environment; onCreate: (key: ApiKeyCreate) => Promise<unknown> }) {
  const [ids] = useState(() => ({
    name: uniqueId('key-name'),
    environment: uniqueId('key-env'),
    scope: uniqueId('key-scope'),
    expires: uniqueId('key-expires'),
    allowlist: uniqueId('key-allowlist'),
  }));
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState<Environment>(props.environment);
  const [scope, setScope] = useState<Scope>('read');
  const [expires, setExpires] = useState('');
  const [allowlist, setAllowlist] = useState('');
  const [sent, setSent] = useState<string[]>([]);
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    const addresses = entriesOf(allowlist);
    setSent(addresses);
    const body: ApiKeyCreate = {
      name,
      environment,
      scope,
      attachment: { type: 'workspace' },
      // The start of the chosen day where the person is; the API refuses a moment already past.
      ...(expires ? { expires_at: new Date(`${expires}T00:00`).toISOString() } : {}),
      ...(addresses.length > 0 ? { ip_allowlist: addresses } : {}),
    };
    if (await action.run(() => props.onCreate(body))) {
      setName('');
      setExpires('');
      setAllowlist('');
    }
  };
  return (
    <form class="settings-form" onSubmit={submit} noValidate>
      <ProblemNotice error={action.error} />
      <TextField
        id={ids.name}
        label="Key name"
        required
        value={name}
        onInput={setName}
        error={action.error}
        pointer="/name"
        hint="Say where it is used."
      />
      <ChoiceField
        id={ids.environment}
        label="Key environment"
        value={environment}
        options={environmentChoices}
        onChange={setEnvironment}
        error={action.error}
        pointer="/environment"
      />
      <ChoiceField
        id={ids.scope}
        label="Scope"
        value={scope}
        options={scopeChoices}
        onChange={setScope}
        error={action.error}
        pointer="/scope"
      />
      <TextField
        id={ids.expires}
        label="Expires on (optional)"
        type="date"
        value={expires}
        onInput={setExpires}
        error={action.error}
        pointer="/expires_at"
        hint="Revoked automatically when this day starts; empty: it does not expire."
      />
      <EntryListField
        id={ids.allowlist}
        label="Allowed IP addresses (optional)"
        hint="One address or CIDR range a line, such as 203.0.113.0/24; empty: any address."
        value={allowlist}
        onInput={setAllowlist}
        issues={listIssues(action.error, '/ip_allowlist', sent)}
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Create API key
        </button>
      </div>
    </form>
  );
}
