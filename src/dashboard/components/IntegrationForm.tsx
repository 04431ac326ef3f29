import { useState } from 'preact/hooks';
import type { EventType, Integration, IntegrationCreate, IntegrationUpdate } from '../../client/schemas.js';
import { eventTypes } from '../integration-vocabulary.js';
import { useAction } from '../use-action.js';
import { FieldIssues } from './FieldIssues.js';
import { ProblemNotice } from './ProblemNotice.js';
import { TextField, uniqueId } from './TextField.js';

/** What the form edits: the fields a create and an update share (an update may clear the note with null). */
export type IntegrationFields = Required<Pick<IntegrationCreate, 'url' | 'events' | 'enabled'>> & Pick<IntegrationUpdate, 'description'>;

/**
 * A webhook integration's URL, events, note and whether it delivers: empty for a new one, or an existing one's
 * values to change. The API checks everything (a public HTTPS URL, at least one event); its issues are shown at
 * their fields and what was typed stays.
 */
export function IntegrationForm(props: {
  integration?: Integration;
  submitLabel: string;
  onSubmit: (fields: IntegrationFields) => Promise<unknown>;
  onCancel?: () => void;
  /** Reads the integration again (after a 412: someone else changed it); what was typed here stays. */
  onReload?: () => void;
}) {
  const existing = props.integration;
  const [ids] = useState(() => ({ url: uniqueId('integration-url'), note: uniqueId('integration-note'), events: uniqueId('events') }));
  const [url, setUrl] = useState(existing?.url ?? '');
  const [events, setEvents] = useState<EventType[]>(existing?.events ?? ['submission.completed']);
  const [note, setNote] = useState(existing?.description ?? '');
  const [enabled, setEnabled] = useState(existing?.enabled ?? true);
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    const done = await action.run(() =>
      props.onSubmit({
        url,
        events,
        enabled,
        ...(note ? { description: note } : existing?.description ? { description: null } : {}),
      }),
    );
    if (done && !existing) {
      setUrl('');
      setNote('');
    }
  };
  const toggle = (type: EventType, on: boolean) =>
    setEvents(on ? eventTypes.filter((t) => t === type || events.includes(t)) : events.filter((t) => t !== type));

  return (
    <form class="settings-form" onSubmit={submit} noValidate>
      <ProblemNotice error={action.error} onReload={props.onReload} />
      <TextField
        id={ids.url}
        label="Endpoint URL"
        type="url"
        required
        value={url}
        onInput={setUrl}
        error={action.error}
        pointer="/url"
        hint="A public HTTPS address; each event is POSTed to it, signed with the integration's secret."
      />
      <fieldset aria-describedby={`${ids.events}-issues`}>
        <legend>Events to deliver</legend>
        <div class="checkbox-grid">
          {eventTypes.map((type) => (
            <label key={type} class="checkbox">
              <input type="checkbox" checked={events.includes(type)} onChange={(e) => toggle(type, e.currentTarget.checked)} />{' '}
              <code>{type}</code>
            </label>
          ))}
        </div>
        <FieldIssues id={`${ids.events}-issues`} error={action.error} pointer="/events" />
      </fieldset>
      <TextField
        id={ids.note}
        label="Description (optional)"
        multiline
        value={note}
        onInput={setNote}
        error={action.error}
        pointer="/description"
      />
      <label class="checkbox">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} /> Deliver events (unchecked: paused)
      </label>
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
