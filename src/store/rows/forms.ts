import { isDeepStrictEqual } from 'node:util';
import type { Environment, Schema } from '../../contract.js';
import { deepFreeze, type Frozen } from '../../frozen.js';
import type { FormRecord } from '../types.js';
import { fromJson } from './json.js';

type Form = Schema<'Form'>;
type Definition = Pick<Form, 'steps' | 'logic' | 'scoring'>;
/** What a version keeps beside the definition: the page's screens and language, stored only where not default. */
type Screens = Pick<Form, 'welcome' | 'ending' | 'language'>;
/** The form's settings beside its definition: not versioned, stored only where they differ from their defaults. */
type Settings = Pick<Form, 'spam_protection' | 'hosting' | 'appearance'>;
/** The definition column's JSON: the definition, and those of the form's settings that are not their defaults. */
type StoredDefinition = Definition &
  Partial<Screens> &
  Partial<Omit<Settings, 'hosting'>> & {
    /** `{ "enabled": true }` for a hosted form; rows written before the address was built on read also carry a `url`. */
    hosting?: { enabled: boolean; url?: string | null };
    /** The logo's image as stored beside the form (its bytes are in `form_logos`); its address is built on read. */
    logo?: StoredLogo;
  };

/** A form's logo as its definition column keeps it: the image's content hash and what was read from its bytes. */
export type StoredLogo = Omit<Schema<'FormLogo'>, 'url'> & { sha256: string };

/** The extension of a logo's address, by its media type. */
export const logoExtensions: Readonly<Record<StoredLogo['content_type'], string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

/**
 * The logo's path, named by its content hash so that the address changes with the image; the domain makes it absolute
 * with the public base URL of whenever the form leaves the server (src/domain/hosting/settings.ts).
 */
export const logoPath = (formId: string, logo: Pick<StoredLogo, 'sha256' | 'content_type'>): string =>
  `/f/${formId}/logo/${logo.sha256}.${logoExtensions[logo.content_type]}`;

const logoOf = (formId: string, stored: StoredLogo | undefined): Form['logo'] =>
  stored === undefined
    ? null
    : {
        url: logoPath(formId, stored),
        content_type: stored.content_type,
        width: stored.width,
        height: stored.height,
        size: stored.size,
      };

/** The logo as the definition column keeps it: the hash, read back from the path the record carries. */
export function storedLogoOf(logo: NonNullable<Form['logo']>): StoredLogo {
  const sha256 = /\/logo\/([0-9a-f]{64})\.[a-z]+$/.exec(logo.url)?.[1];
  if (sha256 === undefined) throw new Error(`A logo's address names no content hash: ${logo.url}`);
  const { content_type, width, height, size } = logo;
  return { sha256, content_type, width, height, size };
}

/**
 * Spam protection off, the SpamProtection schema's defaults (test/domain/spec-sync.test.ts pins them): forms stored
 * before it existed, and forms that never turned it on (not written to the column).
 */
export const noSpamProtection: Readonly<Form['spam_protection']> = Object.freeze({
  honeypot_field: null,
  min_completion_seconds: 0,
  proof_of_work: false,
});

/** Hosting off: forms stored before it existed, and forms never hosted. */
export const noHosting: Readonly<Form['hosting']> = Object.freeze({ enabled: false, url: null });

/** The page's look when the form sets none. */
export const defaultAppearance: Readonly<Form['appearance']> = Object.freeze({ accent_color: '#4338ca', font: 'system' });

/** No welcome screen, the page's own thank-you, English: forms stored before screens existed, and those that set none. */
export const defaultScreens: Readonly<Screens> = Object.freeze({ welcome: null, ending: null, language: 'en' });

const defaultSettings: Readonly<Settings & Screens> = {
  spam_protection: noSpamProtection,
  hosting: noHosting,
  appearance: defaultAppearance,
  ...defaultScreens,
};

export interface FormSummaryRow {
  id: string;
  workspace_id: string;
  environment: Environment;
  folder_id: string | null;
  name: string;
  slug: string;
  version: number;
  created_at: string;
  updated_at: string;
  metadata: unknown;
}

export interface FormRow extends FormSummaryRow {
  /** The definition as JSON text (both stores keep the text as written). */
  definition: string;
}

export interface FormVersionRow {
  id: string;
  form_id: string;
  version: number;
  name: string;
  slug: string;
  definition: string;
  created_at: string;
}

export const toSummary = (row: FormSummaryRow): Schema<'FormSummary'> => ({
  id: row.id,
  object: 'form',
  name: row.name,
  slug: row.slug,
  status: 'published',
  version: row.version,
  folder_id: row.folder_id,
  test: row.environment === 'test',
  created_at: row.created_at,
  updated_at: row.updated_at,
  metadata: fromJson<Form['metadata']>(row.metadata),
});

/**
 * Parsed definitions by form id and version. Every submission reads its form, and parsing the definition
 * was a measurable share of a POST /v1/submissions; a version's definition never changes, so the parse is
 * kept. Definitions are frozen so no caller can change the shared copy.
 */
const parsedDefinitions = new Map<string, { text: string; definition: Frozen<StoredDefinition> }>();
const maxParsedDefinitions = 1000;

function definitionOfRow(row: FormRow): Frozen<StoredDefinition> {
  const key = `${row.id}@${row.version}`;
  const cached = parsedDefinitions.get(key);
  // Comparing the stored text is a memory compare, far cheaper than parsing it again.
  if (cached !== undefined && cached.text === row.definition) return cached.definition;
  const definition = deepFreeze(JSON.parse(row.definition) as StoredDefinition);
  if (parsedDefinitions.size >= maxParsedDefinitions) parsedDefinitions.delete(parsedDefinitions.keys().next().value!);
  parsedDefinitions.set(key, { text: row.definition, definition });
  return definition;
}

/**
 * The form as stored. Of `hosting` only `enabled` is the form's: a `url` written by an earlier version of the service
 * is ignored, and the domain gives the address of now as the form leaves the server (src/domain/hosting/settings.ts).
 */
export function toFormRecord(row: FormRow): FormRecord {
  const stored = definitionOfRow(row);
  const hosting = stored.hosting?.enabled ? { enabled: true, url: null } : noHosting;
  return {
    form: { ...defaultSettings, ...toSummary(row), ...stored, hosting, logo: logoOf(row.id, stored.logo) },
    workspaceId: row.workspace_id,
    environment: row.environment,
  };
}

/** The definition column's text; a setting only when it is not its default, so a form without any is stored as before. */
export function definitionOf(form: Form): string {
  const { steps, logic, scoring } = form;
  const stored: StoredDefinition = { steps, logic, scoring };
  for (const name of Object.keys(defaultSettings) as Array<keyof typeof defaultSettings>) {
    if (!isDeepStrictEqual(form[name], defaultSettings[name])) Object.assign(stored, { [name]: form[name] });
  }
  // Of hosting, only whether it is on: the page's address follows the public base URL of whenever the form is read.
  if (form.hosting.enabled) stored.hosting = { enabled: true };
  else delete stored.hosting;
  if (form.logo !== null) stored.logo = storedLogoOf(form.logo);
  return JSON.stringify(stored);
}

/**
 * A version is a snapshot of the definition and the page's screens and language; the form's settings (spam
 * protection, hosting, appearance) are not versioned.
 */
const versionedOf = ({ steps, logic, scoring, ...stored }: StoredDefinition): Definition & Screens => ({
  steps,
  logic,
  scoring,
  welcome: stored.welcome ?? defaultScreens.welcome,
  ending: stored.ending ?? defaultScreens.ending,
  language: stored.language ?? defaultScreens.language,
});

export const toVersion = (row: FormVersionRow): Schema<'FormVersion'> => ({
  id: row.id,
  object: 'form_version',
  form_id: row.form_id,
  version: row.version,
  name: row.name,
  slug: row.slug,
  ...versionedOf(JSON.parse(row.definition) as StoredDefinition),
  created_at: row.created_at,
});

/** A version summary as selected: every column but the definition. */
export type FormVersionSummaryRow = Omit<Schema<'FormVersionSummary'>, 'object'>;

export const toVersionSummary = ({ id, ...row }: FormVersionSummaryRow): Schema<'FormVersionSummary'> => ({
  id,
  object: 'form_version',
  ...row,
});

/** The counts and size a version's summary shows, kept beside its definition so lists never parse it. */
export const snapshotCounts = (form: Form, definition: string) => ({
  stepCount: form.steps.length,
  fieldCount: form.steps.reduce((sum, step) => sum + step.fields.length, 0),
  logicRuleCount: form.logic.length,
  scoringRuleCount: form.scoring.rules.length,
  definitionBytes: Buffer.byteLength(definition, 'utf8'),
});
