import { environment } from '../state.js';

/**
 * Live or test data: the tokens act in one environment (it is part of the authorization), so switching authorizes
 * again in the other one and comes back to the same screen. `aria-pressed` says which one is on.
 */
export function EnvironmentSwitch(props: { onSwitch: (to: 'live' | 'test') => void }) {
  const test = environment.value === 'test';
  return (
    <button type="button" class="environment-switch" aria-pressed={test} onClick={() => props.onSwitch(test ? 'live' : 'test')}>
      Test mode
    </button>
  );
}
