/**
 * A form's `hosting` and `appearance`: every member present, defaults where an input left one out. Only
 * `hosting.enabled` is the form's; its page's `url` is the service's to decide, from its public base URL as it is
 * when the form leaves the server (`presentedForm`), never as it was when the form was written: a deployment that
 * changes `PUBLIC_BASE_URL` or its port must not leave old addresses in reads and events.
 */
import type { Schema } from '../../contract.js';
import { defaultAppearance, noHosting } from '../../store/rows/forms.js';
import { publicBaseUrlOf, type Services } from '../services.js';

type Form = Schema<'Form'>;

/** The path of a hosted form's page, outside the API's base path. */
export const hostedPagePath = (formId: string): string => `/f/${formId}`;

/** The hosting a request sets, as stored: whether it is on, without an address. */
export const hostingOf = (input: Schema<'FormHostingSettings'> | undefined): Form['hosting'] =>
  (input?.enabled ?? noHosting.enabled) ? { enabled: true, url: null } : noHosting;

/**
 * The form as it leaves the server: its page's address built from the public base URL of now, while hosting is on,
 * and its logo's address (kept as a path, `/f/{id}/logo/{sha256}.png`) made absolute the same way.
 */
export function presentedForm<F extends Pick<Form, 'id' | 'hosting'> & Partial<Pick<Form, 'logo'>>>(
  services: Pick<Services, 'publicBaseUrl' | 'localBaseUrl'>,
  form: F,
): F {
  const base = publicBaseUrlOf(services).replace(/\/+$/, '');
  const hosting = form.hosting.enabled ? { enabled: true, url: `${base}${hostedPagePath(form.id)}` } : noHosting;
  const logo = form.logo?.url.startsWith('/') ? { ...form.logo, url: `${base}${form.logo.url}` } : form.logo;
  if (hosting.url === form.hosting.url && logo === form.logo) return form;
  return logo === undefined ? { ...form, hosting } : { ...form, hosting, logo };
}

export const appearanceOf = (input: Partial<Form['appearance']> | undefined): Form['appearance'] => ({ ...defaultAppearance, ...input });
