/**
 * The builder edits a draft of the API's Form: the form as `getForm` returned it (or, for a new form, the members a
 * `createForm` takes), changed in the browser and sent whole-part by part: `steps`, `logic` and `scoring` are
 * replaced whole on an update, so a part goes in the request only if it differs from the form the draft started from.
 */
import type { Form, FormCreate, FormUpdate, Schema } from '../../client/schemas.js';

export type Field = Schema<'Field'>;
export type FieldType = Field['type'];
export type Step = Schema<'Step'>;
export type LogicRule = Schema<'LogicRule'>;
export type Condition = Schema<'Condition'>;
export type FieldCondition = Schema<'FieldCondition'>;
export type ChoiceOption = Schema<'ChoiceOption'>;
export type Scoring = Schema<'Scoring'>;
export type Welcome = Schema<'FormWelcome'>;
export type Ending = Schema<'FormEnding'>;

/** The contract's default language of a form (FormLanguage's `default`). */
export const defaultLanguage = 'en';

/** The members of a Form the builder edits; a Form is one. */
export type FormDraft = Pick<
  Form,
  'name' | 'slug' | 'folder_id' | 'steps' | 'logic' | 'scoring' | 'spam_protection' | 'appearance' | 'welcome' | 'ending' | 'language'
> & {
  hosting: { enabled: boolean; url?: string | null };
};

/** The parts of a form an update may change, named as a person reads them. */
export const formParts = {
  name: 'Name',
  slug: 'Slug',
  folder_id: 'Folder',
  steps: 'Steps and fields',
  logic: 'Logic',
  scoring: 'Scoring',
  spam_protection: 'Spam protection',
  hosting: 'Hosting',
  appearance: 'Appearance',
  welcome: 'Welcome screen',
  ending: 'Ending screen',
  language: 'Language',
} as const satisfies Partial<Record<keyof FormUpdate, string>>;
export type FormPart = keyof typeof formParts;

/** What a new form starts as: one empty step, and the contract's defaults for the settings. */
export function newFormDraft(folderId: string | null): FormDraft {
  return {
    name: '',
    slug: '',
    folder_id: folderId,
    steps: [{ id: 'step_1', title: 'Step 1', fields: [] }],
    logic: [],
    scoring: { rules: [], grades: [] },
    spam_protection: { honeypot_field: null, min_completion_seconds: 0, proof_of_work: false },
    hosting: { enabled: false },
    appearance: { accent_color: '#4338ca', font: 'system' },
    welcome: null,
    ending: null,
    language: defaultLanguage,
  };
}

/**
 * A draft this tab kept, with any part it lacks taken from `from` (the form it was made to, or an empty new form): a
 * draft kept before the builder edited that part leaves it as it was.
 */
export const completedDraft = (kept: FormDraft, from: FormDraft): FormDraft => ({ ...from, ...kept });

/** A JSON text with keys sorted, so that two equal values compare equal whatever order their keys came in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** What an update sends of a part: hosting's `url` is the service's, not a setting. */
function partOf(form: FormDraft, part: FormPart): unknown {
  return part === 'hosting' ? { enabled: form.hosting.enabled } : form[part];
}

/** The parts in which two states of a form differ. */
export function differingParts(a: FormDraft, b: FormDraft): FormPart[] {
  return (Object.keys(formParts) as FormPart[]).filter((part) => canonical(partOf(a, part)) !== canonical(partOf(b, part)));
}

/** The `updateForm` body for the draft's changes to `base`; undefined when nothing changed. */
export function updateBodyOf(base: FormDraft, draft: FormDraft): FormUpdate | undefined {
  const parts = differingParts(base, draft);
  if (parts.length === 0) return undefined;
  return Object.fromEntries(parts.map((part) => [part, partOf(draft, part)])) as FormUpdate;
}

/** The `createForm` body for a new form's draft; an empty slug is left for the service to derive from the name. */
export function createBodyOf(draft: FormDraft): FormCreate {
  const { slug, hosting, ...rest } = draft;
  return {
    name: rest.name,
    ...(slug ? { slug } : {}),
    folder_id: rest.folder_id,
    steps: rest.steps,
    logic: rest.logic,
    scoring: rest.scoring,
    spam_protection: rest.spam_protection,
    hosting: { enabled: hosting.enabled },
    appearance: rest.appearance,
    welcome: rest.welcome,
    ending: rest.ending,
    language: rest.language,
  };
}

/** `prefix_N` with the smallest N that no id in `taken` has. */
export function freeId(prefix: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  let n = 1;
  while (used.has(`${prefix}_${n}`)) n += 1;
  return `${prefix}_${n}`;
}

export const allFields = (steps: readonly Step[]): Field[] => steps.flatMap((step) => step.fields);

/** Items of a list with the one at `index` moved by `by` places (a no-op past either end). */
export function moved<T>(items: readonly T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (to < 0 || to >= items.length) return [...items];
  const copy = [...items];
  const [item] = copy.splice(index, 1);
  copy.splice(to, 0, item as T);
  return copy;
}

export const replaced = <T>(items: readonly T[], index: number, item: T): T[] => items.map((old, at) => (at === index ? item : old));
export const removed = <T>(items: readonly T[], index: number): T[] => items.filter((_, at) => at !== index);
