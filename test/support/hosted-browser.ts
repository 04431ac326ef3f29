/**
 * Helpers for the hosted page's browser tests: axe-core run inside a page (through the DevTools protocol, which the
 * page's Content-Security-Policy does not govern, so the page keeps its real policy), and the page's Content-Security-
 * Policy reports collected from the console.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Frame, Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** Every violation axe-core finds in the page (or frame) as it is now, whatever its impact. */
export async function axeViolations(target: Page | Frame): Promise<AxeViolation[]> {
  await target.evaluate(axeSource);
  // A string, run in the page: the test program has no DOM library.
  return (await target.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations.map(({ id, impact, help, nodes }) => ({ id, impact, help, nodes: nodes.map(({ target }) => ({ target })) })))`)) as AxeViolation[];
}

/** The serious and critical violations axe-core finds in the page (or frame) as it is now. */
export async function seriousViolations(target: Page | Frame): Promise<AxeViolation[]> {
  const violations = await axeViolations(target);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** Console messages in which Chromium reports a Content-Security-Policy refusal. */
export function policyRefusals(page: Page): string[] {
  const refusals: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refusals.push(message.text());
  });
  return refusals;
}
