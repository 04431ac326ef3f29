/**
 * The demo-request funnel of the documented examples (FormCreateRequest, SubmissionCreateRequest), so the
 * HTTP tests exercise exactly what the published docs show, and answers to send to it.
 *
 * The form: contact (full_name, email, hidden utm_source) → company (company_size scored 0/10/25, has_budget)
 * → budget (budget_usd; skipped when has_budget is false) → finish (notes, gdpr consent). Rule big_budget:
 * +40 when budget_usd ≥ 50,000. Grades A ≥ 50, B ≥ 20, C ≥ 0.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { DomainEvent, EventPublisher } from '../../src/domain/events.js';
import type { Answers, FormCreate, FormRequest, SubmissionCreate } from '../support/factories.js';

/** The value of an example file of the document, as the request schema it illustrates. */
const example = <Body>(name: string): Body =>
  parse(readFileSync(fileURLToPath(new URL(`../../openapi/components/examples/${name}.yaml`, import.meta.url)), 'utf8')).value;

/** The documented demo-request form, without its slug (several tests create it); `extra` is merged in. */
export function demoForm(extra: FormRequest = {}): FormRequest {
  const { slug: _slug, ...form } = example<FormCreate>('FormCreateRequest');
  return { ...form, ...extra };
}

/** Ana: 201_plus (+25), budget 80,000 (+40) → 65, grade A, every step visited. */
export const anaAnswers = (): Answers => example<SubmissionCreate>('SubmissionCreateRequest').answers;
export const anaHidden = (): Record<string, string> => example<SubmissionCreate>('SubmissionCreateRequest').hidden ?? {};

/** A completed lead without a budget: the logic skips the budget step. */
export const noBudgetAnswers = (companySize = '11_200'): Answers => ({
  full_name: 'Tom Okafor',
  email: 'tom@brightdesk.example',
  company_size: companySize,
  has_budget: false,
  gdpr: true,
});

/** A completed lead with a budget of the given size. */
export const budgetAnswers = (budget: number, companySize = '1_10'): Answers => ({
  full_name: 'Kim Lee',
  email: 'kim@lee.example',
  company_size: companySize,
  has_budget: true,
  budget_usd: budget,
  gdpr: true,
});

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
