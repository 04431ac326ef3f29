/**
 * The demo-request funnel of the documented examples (FormCreateRequest, SubmissionCreateRequest), so the
 * HTTP tests exercise exactly what the published docs show, and small helpers to create forms and answers.
 *
 * The form: contact (full_name, email, hidden utm_source) → company (company_size scored 0/10/25, has_budget)
 * → budget (budget_usd; skipped when has_budget is false) → finish (notes, gdpr consent). Rule big_budget:
 * +40 when budget_usd ≥ 50,000. Grades A ≥ 50, B ≥ 20, C ≥ 0.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { parse } from 'yaml';
import type { DomainEvent, EventPublisher } from '../../src/domain/events.js';
import type { TestApi } from '../support/harness.js';

const example = (name: string): Record<string, any> =>
  parse(readFileSync(fileURLToPath(new URL(`../../openapi/components/examples/${name}.yaml`, import.meta.url)), 'utf8')).value;

export const demoForm = (): Record<string, any> => example('FormCreateRequest');

/** Ana: 201_plus (+25), budget 80,000 (+40) → 65, grade A, every step visited. */
export const anaAnswers = (): Record<string, unknown> => example('SubmissionCreateRequest').answers;
export const anaHidden = (): Record<string, string> => example('SubmissionCreateRequest').hidden;

/** A completed lead without a budget: the logic skips the budget step. */
export const noBudgetAnswers = (companySize = '11_200'): Record<string, unknown> => ({
  full_name: 'Tom Okafor',
  email: 'tom@brightdesk.example',
  company_size: companySize,
  has_budget: false,
  gdpr: true,
});

/** A completed lead with a budget of the given size. */
export const budgetAnswers = (budget: number, companySize = '1_10'): Record<string, unknown> => ({
  full_name: 'Kim Lee',
  email: 'kim@lee.example',
  company_size: companySize,
  has_budget: true,
  budget_usd: budget,
  gdpr: true,
});

export async function createForm(
  api: TestApi,
  key = api.workspace.live_admin_key,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string } & Record<string, any>> {
  const { slug: _slug, ...form } = demoForm();
  const res = await api.call('post', '/v1/forms', key).send({ ...form, ...overrides });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function submit(
  api: TestApi,
  body: Record<string, unknown>,
  key = api.workspace.live_admin_key,
): Promise<{ id: string } & Record<string, any>> {
  const res = await api.call('post', '/v1/submissions', key).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** An event publisher that remembers what it was given. */
export function recordingEvents() {
  const published: DomainEvent[] = [];
  const publisher: EventPublisher = {
    outboxEvent: (event) => {
      published.push(event);
      return undefined;
    },
  };
  return { published, publisher };
}

/** A clock tests can move; the app reads it for every timestamp. */
export function testClock(start: string) {
  let current = new Date(start);
  return {
    now: () => new Date(current),
    set: (at: string) => {
      current = new Date(at);
    },
  };
}
