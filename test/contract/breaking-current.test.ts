// The breaking-change gate on the document as it is (`npm run breaking`): the bundle the `api` project's global
// setup wrote (dist/openapi.yaml) against the released v1 baseline. It runs here, beside the other test files,
// rather than alone before vitest starts; a failure shows the gate's whole report.
import { expect, it } from 'vitest';
import { runBreakingGate } from '../support/breaking-gate.js';

const gateTimeout = 300_000;

it(
  'when the current document is compared with the v1 baseline, then the gate finds no breaking change',
  async () => {
    const { code, output } = await runBreakingGate([], gateTimeout - 5_000);
    expect(code, output).toBe(0);
    expect(output).toContain('No breaking change against the v1 baseline.');
  },
  gateTimeout,
);
