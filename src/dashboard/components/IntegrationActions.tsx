import { useState } from 'preact/hooks';
import type { EventType } from '../../client/schemas.js';
import { eventTypes } from '../integration-vocabulary.js';
import { useAction } from '../use-action.js';
import { ConfirmButton } from './ConfirmButton.js';
import { ProblemNotice } from './ProblemNotice.js';
import { uniqueId } from './TextField.js';

/** How long the rotated-out secret keeps signing beside the new one (the API's `expire_previous_after`, seconds). */
const overlaps = [
  { seconds: 86_400, label: '24 hours (the default)' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 604_800, label: '7 days' },
  { seconds: 0, label: 'None: retire it now' },
];

/**
 * What an editor can do with an integration besides changing it: send a test event (`integration.ping`) or a
 * synthetic sample of a type, give it a new signing secret, or delete it. Each shows the API's error in place.
 */
export function IntegrationActions(props: {
  onPing: () => Promise<unknown>;
  onSample: (type: EventType) => Promise<unknown>;
  onRotate: (expirePreviousAfter: number) => Promise<unknown>;
  onDelete: () => Promise<unknown>;
}) {
  const [ids] = useState(() => ({ sample: uniqueId('sample-type'), overlap: uniqueId('overlap') }));
  const [sample, setSample] = useState<EventType>('submission.completed');
  const [overlap, setOverlap] = useState(overlaps[0]!.seconds);
  const action = useAction();
  return (
    <div class="integration-actions">
      <ProblemNotice error={action.error} />
      <div class="actions">
        <button type="button" disabled={action.busy} onClick={() => action.run(props.onPing)}>
          Send test event
        </button>
      </div>
      <div class="inline-form">
        <label for={ids.sample}>Sample event type</label>
        <select id={ids.sample} value={sample} onChange={(e) => setSample(e.currentTarget.value as EventType)}>
          {eventTypes.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
        <button type="button" disabled={action.busy} onClick={() => action.run(() => props.onSample(sample))}>
          Send sample
        </button>
      </div>
      <div class="inline-form">
        <label for={ids.overlap}>Previous secret stays valid for</label>
        <select id={ids.overlap} value={overlap} onChange={(e) => setOverlap(Number(e.currentTarget.value))}>
          {overlaps.map((choice) => (
            <option key={choice.seconds} value={choice.seconds}>
              {choice.label}
            </option>
          ))}
        </select>
        <button type="button" disabled={action.busy} onClick={() => action.run(() => props.onRotate(overlap))}>
          Rotate secret
        </button>
      </div>
      <div class="actions">
        <ConfirmButton
          label="Delete integration"
          confirm="Delete it, with its delivery log? Pending deliveries are dropped."
          onConfirm={() => action.run(props.onDelete).then(() => undefined)}
        />
      </div>
    </div>
  );
}
