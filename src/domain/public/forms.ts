/**
 * The forms a publishable key reaches, and what a page may see of one. A form the key cannot reach (another
 * environment's, or outside its attachment) does not exist for it: 404, never 403, so a page learns nothing about
 * the workspace's other forms.
 */
import type { Schema } from '../../contract.js';
import type { FormRecord } from '../../store/types.js';
import { attachmentReaches, type Principal } from '../access.js';
import { notFound } from '../errors.js';
import { presentedForm } from '../hosting/settings.js';
import type { Services } from '../services.js';
import { issueStartedToken } from './started-token.js';

type Form = Schema<'Form'>;

export function reachesForm(principal: Principal, form: Pick<Form, 'id' | 'test' | 'folder_id' | 'hosting'>): boolean {
  if (form.test && principal.environment === 'live') return false;
  // The hosted pages' key serves the hosted forms only: turning hosting off closes the page and its API at once.
  if (principal.publishable?.hostedPage && !form.hosting.enabled) return false;
  return attachmentReaches(principal, form);
}

export async function findPublicForm(services: Services, principal: Principal, id: string): Promise<FormRecord> {
  const record = await services.store.forms.get(principal.workspace.id, id);
  if (!record || !reachesForm(principal, record.form)) throw notFound('form', id);
  return record;
}

/**
 * The steps as a renderer needs them: choice options keep their value and label, never their score. (The generated
 * type lists an option's defaulted `score` as present; the document's option has it optional, as it is here.)
 */
const renderableSteps = (steps: Form['steps']): Form['steps'] =>
  steps.map((step) => ({
    ...step,
    fields: step.fields.map((field) =>
      'options' in field ? { ...field, options: field.options.map(({ value, label }) => ({ value, label })) } : field,
    ),
  })) as Form['steps'];

export async function getPublicForm(services: Services, principal: Principal, id: string): Promise<Schema<'PublicForm'>> {
  const { form: stored } = await findPublicForm(services, principal, id);
  const form = presentedForm(services, stored);
  const { honeypot_field, proof_of_work } = form.spam_protection;
  return {
    object: 'public_form',
    id: form.id,
    name: form.name,
    version: form.version,
    steps: renderableSteps(form.steps),
    logic: form.logic,
    started_token: issueStartedToken(principal, form.id, services.now()),
    spam_protection: { honeypot_field, proof_of_work },
    appearance: form.appearance,
    welcome: form.welcome,
    ending: form.ending,
    language: form.language,
    logo: form.logo,
  };
}
