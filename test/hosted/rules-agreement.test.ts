/**
 * One logic, two runtimes: the hosted page's bundle (dist/hosted/page.*.js, as browsers get it) and the server's domain
 * modules take a table of forms and answers, and must agree on the path through the steps and on every issue of
 * every step. The bundle runs in a fresh V8 context with no DOM, as the page's rules need none. Where the two could
 * part ways, between what a respondent enters and what the server checks, the answers go the page's way too: read
 * from controls by the page's own `readField`, and those on steps left behind cleared as the page clears them
 * (`offPathRefs`), then the page's issues on its path are the server's on what the page sends.
 */
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { Schema } from '../../src/contract.js';
import { walkStepIndices } from '../../src/domain/logic/walk-path.js';
import { validateAnswers } from '../../src/domain/submissions/validate-answers.js';
import { type HostedAssetManifest, hostedAssetsDir, manifestFile } from '../../src/hosted/manifest.js';

type Form = Pick<Schema<'Form'>, 'steps' | 'logic'>;
type Answers = Record<string, unknown>;

/** A form control as `readField` reads it: its value, and whether it is checked. */
interface Control {
  value: string;
  checked: boolean;
}

interface BundledRules {
  pathOf(form: Form, answers: Answers, hidden?: Answers): number[];
  stepIssues(form: Form, step: number, answers: Answers, hidden?: Answers): Schema<'ValidationIssue'>[];
  offPathRefs(form: Form, answers: Answers, hidden?: Answers): string[];
  readField(root: { querySelectorAll(selector: string): Control[] }, field: Schema<'Field'>): unknown;
}

function loadBundle(): BundledRules {
  const dir = new URL(`../../${hostedAssetsDir}/`, import.meta.url);
  const manifest = JSON.parse(readFileSync(new URL(manifestFile, dir), 'utf8')) as HostedAssetManifest;
  // `readField` finds controls by a CSS selector with the ref escaped; the refs here need no escaping.
  const context = vm.createContext({ CSS: { escape: (value: string) => value } });
  vm.runInContext(readFileSync(new URL(manifest['page.js'], dir), 'utf8'), context);
  return context.FormFunnelPage as BundledRules;
}

const field = <T extends Schema<'Field'>>(value: T) => value;

/** Every field type, with limits, and logic that jumps, ends and falls through on several operators. */
const form: Form = {
  steps: [
    {
      id: 'about',
      title: 'About you',
      fields: [
        field({ type: 'short_text', ref: 'name', label: 'Name', required: true, min_length: 2, max_length: 20 }),
        field({ type: 'email', ref: 'email', label: 'Email', required: true }),
        field({ type: 'phone', ref: 'phone', label: 'Phone', required: false }),
        field({ type: 'website', ref: 'site', label: 'Site', required: false }),
        field({ type: 'hidden', ref: 'utm', label: 'UTM' }),
      ],
    },
    {
      id: 'company',
      title: 'Company',
      fields: [
        field({
          type: 'single_choice',
          ref: 'size',
          label: 'Size',
          required: true,
          options: [
            { value: 'small', label: 'Small', score: 0 },
            { value: 'large', label: 'Large', score: 0 },
          ],
        }),
        field({ type: 'number', ref: 'seats', label: 'Seats', required: false, minimum: 1, maximum: 500, integer: true }),
        field({ type: 'yes_no', ref: 'budget', label: 'Budget?', required: true }),
      ],
    },
    {
      id: 'details',
      title: 'Details',
      fields: [
        field({
          type: 'multiple_choice',
          ref: 'topics',
          label: 'Topics',
          required: true,
          min_selections: 1,
          max_selections: 2,
          options: [
            { value: 'a', label: 'A', score: 0 },
            { value: 'b', label: 'B', score: 0 },
            { value: 'c', label: 'C', score: 0 },
          ],
        }),
        field({ type: 'rating', ref: 'fit', label: 'Fit', required: false, scale: 5 }),
        field({ type: 'date', ref: 'start', label: 'Start', required: false, min_date: '2026-01-01', max_date: '2027-12-31' }),
      ],
    },
    {
      id: 'finish',
      title: 'Finish',
      fields: [
        field({ type: 'long_text', ref: 'notes', label: 'Notes', required: false, max_length: 10 }),
        field({ type: 'consent', ref: 'gdpr', label: 'OK', required: true }),
      ],
    },
  ],
  logic: [
    {
      id: 'no_budget',
      from_step: 'company',
      when: { field: 'budget', op: 'equals', value: false },
      then: { action: 'jump_to_step', step: 'finish' },
    },
    {
      id: 'big',
      from_step: 'company',
      when: {
        all: [
          { field: 'size', op: 'equals', value: 'large' },
          { field: 'seats', op: 'gte', value: 100 },
        ],
      },
      then: { action: 'jump_to_step', step: 'finish' },
    },
    { id: 'spam', from_step: 'about', when: { field: 'name', op: 'contains', value: 'bot' }, then: { action: 'end_form' } },
    {
      id: 'utm',
      from_step: 'about',
      when: { field: 'utm', op: 'equals', value: 'skip' },
      then: { action: 'jump_to_step', step: 'details' },
    },
  ],
} as Form;

const cases: Array<{ name: string; answers: Answers; hidden?: Answers }> = [
  { name: 'nothing answered', answers: {} },
  {
    name: 'a budget: every step',
    answers: { name: 'Ana', email: 'ana@x.example', size: 'small', budget: true, topics: ['a'], gdpr: true },
  },
  { name: 'no budget: details skipped', answers: { name: 'Ana', email: 'ana@x.example', size: 'small', budget: false, gdpr: true } },
  {
    name: 'large with many seats: details skipped',
    answers: { name: 'Ana', email: 'a@x.example', size: 'large', seats: 300, budget: true },
  },
  { name: 'large with few seats', answers: { name: 'Ana', email: 'a@x.example', size: 'large', seats: 20, budget: true } },
  { name: 'a bot ends the form', answers: { name: 'Robot', email: 'nope' } },
  { name: 'a hidden value jumps', answers: { name: 'Ana', email: 'a@x.example', topics: ['a', 'b', 'c'] }, hidden: { utm: 'skip' } },
  {
    name: 'every check fails',
    answers: {
      name: 'A',
      email: 'ana@',
      phone: '0123',
      site: 'ftp://x',
      size: 'medium',
      seats: 2.5,
      budget: 'yes',
      topics: ['a', 'a'],
      fit: 6,
      start: '2025-12-31',
      notes: 'far too long',
      gdpr: false,
    },
  },
  {
    name: 'numbers out of range',
    answers: { name: 'Ana', email: 'a@x.example', size: 'small', seats: 0, budget: true, topics: [], fit: 0, start: '2028-01-01' },
  },
  {
    name: 'too many topics',
    answers: { name: 'Ana', email: 'a@x.example', size: 'small', budget: true, topics: ['a', 'b', 'c'], start: '2026-02-30' },
  },
];

const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value));

describe('the page’s rules and the server’s', () => {
  const bundle = loadBundle();

  it('when the table runs through both, then the cases take different paths (the table tests the logic)', () => {
    const paths = new Set(
      cases.map(({ answers, hidden }) => JSON.stringify(walkStepIndices({ ...form, scoring: { rules: [], grades: [] } }, answers, hidden))),
    );
    expect(paths.size).toBeGreaterThanOrEqual(4);
  });

  for (const { name, answers, hidden = {} } of cases) {
    it(`when ${name}, then the bundle and the server agree on the path and on each step's issues`, () => {
      const definition = { ...form, scoring: { rules: [], grades: [] } };
      expect(plain(bundle.pathOf(form, answers, hidden))).toEqual(walkStepIndices(definition, answers, hidden));
      const serverIssues = validateAnswers(definition, answers, hidden, 'completed').issues;
      form.steps.forEach((step, index) => {
        const refs = new Set(step.fields.map((item) => item.ref));
        const expected = serverIssues.filter(
          (issue) =>
            issue.field !== undefined && refs.has(issue.field) && issue.location === 'body' && issue.pointer.startsWith('/answers/'),
        );
        expect(plain(bundle.stepIssues(form, index, answers, hidden))).toEqual(expected);
      });
    });
  }

  for (const { name, entered, hidden = {} } of enteredCases) {
    it(`when ${name}, then what the page reads and sends gets from the server the issues the page showed on its path`, () => {
      const asked = form.steps.flatMap((step) => step.fields).filter((item) => item.type !== 'hidden');
      const answers: Answers = {};
      for (const item of asked) {
        const value = bundle.readField(controlsFor(item, entered[item.ref]), item);
        if (value !== undefined) answers[item.ref] = value;
      }
      const left = bundle.offPathRefs(form, answers, hidden);
      const sent = Object.fromEntries(Object.entries(answers).filter(([ref]) => !left.includes(ref)));
      const definition = { ...form, scoring: { rules: [], grades: [] } };

      const path = plain(bundle.pathOf(form, answers, hidden));
      expect(path).toEqual(walkStepIndices(definition, sent, hidden));
      const shown = path.flatMap((index) => plain(bundle.stepIssues(form, index, answers, hidden)));
      const server = validateAnswers(definition, sent, hidden, 'completed').issues.filter(
        (issue) => issue.location === 'body' && issue.pointer.startsWith('/answers/'),
      );
      expect(sortedIssues(shown)).toEqual(sortedIssues(server));
    });
  }
});

/** What a respondent left in the controls: text as typed, the values of the options ticked, a consent box ticked. */
type Entered = Record<string, string | string[] | boolean>;

/** The controls the page renders for a field (fields.ts), in the state the respondent left them. */
function controlsFor(item: Schema<'Field'>, entered: Entered[string] | undefined): { querySelectorAll(): Control[] } {
  const ticked = (value: string) => Array.isArray(entered) && entered.includes(value);
  const options = (values: string[]) => values.map((value) => ({ value, checked: ticked(value) }));
  const controls = ((): Control[] => {
    switch (item.type) {
      case 'single_choice':
      case 'multiple_choice':
        return options(item.options.map((option) => option.value));
      case 'yes_no':
        return options(['true', 'false']);
      case 'rating':
        return options(Array.from({ length: item.scale ?? 5 }, (_, index) => String(index + 1)));
      case 'consent':
        return [{ value: 'on', checked: entered === true }];
      default:
        return [{ value: typeof entered === 'string' ? entered : '', checked: false }];
    }
  })();
  return { querySelectorAll: () => controls };
}

const sortedIssues = (issues: Schema<'ValidationIssue'>[]) =>
  [...issues].sort((a, b) => `${a.pointer} ${a.code}`.localeCompare(`${b.pointer} ${b.code}`));

/** Entries where reading and clearing matter: typed numbers, an emptied field, a course changed after answering. */
const enteredCases: Array<{ name: string; entered: Entered; hidden?: Answers }> = [
  {
    name: 'numbers are typed with spaces and a fraction',
    entered: { name: 'Ana', email: 'ana@x.example', size: ['large'], seats: ' 2.5 ', budget: ['true'], topics: ['a'], fit: ['3'] },
  },
  {
    name: 'a field is left empty and the consent unticked',
    entered: { name: '', email: 'ana@x.example', size: ['small'], seats: '', budget: ['true'], topics: [], notes: '', gdpr: false },
  },
  {
    name: 'details were answered, then the budget changed to no (details left behind)',
    entered: {
      name: 'Ana',
      email: 'ana@x.example',
      size: ['small'],
      budget: ['false'],
      topics: ['a', 'b', 'c'],
      fit: ['5'],
      start: '2025-01-01',
      gdpr: true,
    },
  },
  {
    name: 'many seats make details skipped after they were answered wrongly',
    entered: { name: 'Ana', email: 'a@x.example', size: ['large'], seats: '300', budget: ['true'], start: '2030-01-01', gdpr: true },
  },
  {
    name: 'a hidden value jumps over the company, answered before',
    entered: {
      name: 'Ana',
      email: 'a@x.example',
      size: ['small'],
      seats: '0',
      topics: ['b'],
      start: '2026-06-01',
      notes: 'much too long',
      gdpr: true,
    },
    hidden: { utm: 'skip' },
  },
];
