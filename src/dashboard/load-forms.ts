import { paginate } from '../client/paginate.js';
import type { FormSummary } from '../client/schemas.js';
import { api } from './state.js';

/** Every form this session may read (`listForms`, page after page), newest first: what form pickers offer. */
export async function loadForms(): Promise<FormSummary[]> {
  const forms: FormSummary[] = [];
  for await (const form of paginate(api(), '/forms', { params: { query: { limit: 100 } } })) forms.push(form);
  return forms;
}
