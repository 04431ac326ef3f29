import { useState } from 'preact/hooks';
import type { Schema } from '../../client/schemas.js';
import { type Environment, environmentChoices } from '../key-vocabulary.js';
import { entriesOf, listIssues } from '../list-issues.js';
import { useAction } from '../use-action.js';
import { ChoiceField } from './ChoiceField.js';
import { EntryListField } from './EntryListField.js';
import { ProblemNotice } from './ProblemNotice.js';
import { TextField, uniqueId } from './TextField.js';

type PublishableKey = Schema<'PublishableKey'>;
export interface PublishableKeyFields {
  name: string;
  allowed_origins: string[];
  environment: Environment;
}

/**
 * A publishable key's name and allowed origins (and, for a new key, its environment). Editing an existing key changes
 * only those two; the API checks each origin and its issues are shown with the origin they name.
 */
export function PublishableKeyForm(props: {
  publishableKey?: PublishableKey;
  environment: Environment;
  submitLabel: string;
  onSubmit: (fields: PublishableKeyFields) => Promise<unknown>;
  onCancel?: () => void;
  onReload?: () => void;
}) {
  const existing = props.publishableKey;
  const [ids] = useState(() => ({ name: uniqueId('pk-name'), origins: uniqueId('pk-origins'), environment: uniqueId('pk-env') }));
  const [name, setName] = useState(existing?.name ?? '');
  const [origins, setOrigins] = useState(existing?.allowed_origins.join('\n') ?? '');
  const [environment, setEnvironment] = useState<Environment>(existing?.environment ?? props.environment);
  const action = useAction();
  // The issues' pointers index the origins as they were sent, not as they are being edited since.
  const [sent, setSent] = useState<string[]>([]);
  const issues = listIssues(action.error, '/allowed_origins', sent);

  const submit = async (event: Event) => {
    event.preventDefault();
    const allowed = entriesOf(origins);
    setSent(allowed);
    const done = await action.run(() => props.onSubmit({ name, allowed_origins: allowed, environment }));
    if (done && !existing) {
      setName('');
      setOrigins('');
    }
  };
  return (
    <form class="settings-form" onSubmit={submit} noValidate>
      <ProblemNotice error={action.error} onReload={props.onReload} />
      <TextField
        id={ids.name}
        label="Name"
        required
        value={name}
        onInput={setName}
        error={action.error}
        pointer="/name"
        hint="Say where it is used."
      />
      {!existing && (
        <ChoiceField
          id={ids.environment}
          label="Environment"
          value={environment}
          options={environmentChoices}
          onChange={setEnvironment}
          error={action.error}
          pointer="/environment"
        />
      )}
      <EntryListField
        id={ids.origins}
        label="Allowed origins"
        hint="One a line, such as https://www.example.com: the pages allowed to use the key."
        value={origins}
        onInput={setOrigins}
        issues={issues}
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          {props.submitLabel}
        </button>
        {props.onCancel && (
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
