import { useState } from 'preact/hooks';
import type { Schema } from '../../client/schemas.js';
import { FormFunnelError } from '../api.js';
import { useAction } from '../use-action.js';
import { FieldIssues } from './FieldIssues.js';
import { ProblemNotice } from './ProblemNotice.js';
import { TextField, uniqueId } from './TextField.js';

type PublishableKey = Schema<'PublishableKey'>;
type Environment = Schema<'Environment'>;
export interface PublishableKeyFields {
  name: string;
  allowed_origins: string[];
  environment: Environment;
}

/** The origins as typed, one a line (spaces and commas also separate them). */
const originsOf = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

/** The API's issues about the origins, each with the origin its pointer (`/allowed_origins/2`) names. */
function originIssues(error: unknown, typed: string[]): string[] {
  if (!(error instanceof FormFunnelError)) return [];
  const issues = (error.details as { errors?: Array<{ pointer?: string; message?: string }> } | undefined)?.errors ?? [];
  return issues
    .filter((issue) => issue.pointer === '/allowed_origins' || issue.pointer?.startsWith('/allowed_origins/'))
    .map((issue) => {
      const origin = typed[Number(issue.pointer?.split('/')[2])];
      const message = issue.message ?? 'Invalid value';
      return origin === undefined ? message : `${origin}: ${message}`;
    });
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
  const issues = originIssues(action.error, sent);

  const submit = async (event: Event) => {
    event.preventDefault();
    const allowed = originsOf(origins);
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
        <div class="field">
          <label for={ids.environment}>Environment</label>
          <select id={ids.environment} value={environment} onChange={(e) => setEnvironment(e.currentTarget.value as Environment)}>
            <option value="live">Live</option>
            <option value="test">Test</option>
          </select>
          <FieldIssues id={`${ids.environment}-issues`} error={action.error} pointer="/environment" />
        </div>
      )}
      <div class="field">
        <label for={ids.origins}>Allowed origins</label>
        <p class="muted" id={`${ids.origins}-hint`}>
          One a line, such as https://www.example.com: the pages allowed to use the key.
        </p>
        <textarea
          id={ids.origins}
          rows={3}
          value={origins}
          aria-describedby={`${ids.origins}-hint ${ids.origins}-issues`}
          aria-invalid={issues.length > 0 || undefined}
          onInput={(e) => setOrigins(e.currentTarget.value)}
        />
        {issues.length > 0 && (
          <ul class="field-issues" id={`${ids.origins}-issues`}>
            {issues.map((issue) => (
              <li key={issue}>{issue}</li>
            ))}
          </ul>
        )}
      </div>
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
