import { useState } from 'preact/hooks';
import type { EventType, FormSummary, Integration, IntegrationCreate, IntegrationUpdate } from '../../client/schemas.js';
import { eventTypes } from '../integration-vocabulary.js';
import { useAction } from '../use-action.js';
import { FieldIssues } from './FieldIssues.js';
import { FormPicker } from './FormPicker.js';
import { ProblemNotice } from './ProblemNotice.js';
import { TextField, uniqueId } from './TextField.js';

/** What the form edits: the fields a create and an update share (an update clears the note or the form with null). */
export type IntegrationFields = Required<Pick<IntegrationCreate, 'url' | 'events' | 'enabled'>> &
  Pick<IntegrationUpdate, 'description' | 'form_id'>;

/**
 * A webhook integration's URL, events, form (the workspace's `forms`, or every form), note and whether it delivers:
 * empty for a new one, or an existing one's
 * values to change. The API checks everything (a public HTTPS URL, at least one event); its issues are shown at
 * their fields and what was typed stays.
 */
export function IntegrationForm(props: {
  integration?: Integration;
  forms: FormSummary[];
  submitLabel: string;
  onSubmit: (fields: IntegrationFields) => Promise<unknown>;
  onCancel?: () => void;
  /** Reads the integration again (after a 412: someone else changed it); what was typed here stays. */
  onReload?: () => void;
}) {
  const existing = props.integration;
  const [ids] = useState(() => ({
    url: uniqueId('integration-url'),
    note: uniqueId('integration-note'),
    events: uniqueId('events'),
    form: uniqueId('integration-form'),
  }));
  const [url, setUrl] = useState(existing?.url ?? '');
  const [events, setEvents] = useState<EventType[]>(existing?.events ?? ['submission.completed']);
  const [note, setNote] = useState(existing?.description ?? '');
  const [formId, setFormId] = useState(existing?.form_id ?? '');
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
        ...(formId ? { form_id: formId } : existing?.form_id ? { form_id: null } : {}),
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
      <FormPicker
        id={ids.form}
        label="Only events of this form"
        anyLabel="Every form"
        forms={props.forms}
        value={formId}
        onChange={setFormId}
        error={action.error}
        pointer="/form_id"
      />
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
