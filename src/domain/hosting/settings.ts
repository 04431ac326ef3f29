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

/** The form as it leaves the server: its page's address built from the public base URL of now, while hosting is on. */
export function presentedForm<F extends Pick<Form, 'id' | 'hosting'>>(
  services: Pick<Services, 'publicBaseUrl' | 'localBaseUrl'>,
  form: F,
): F {
  if (!form.hosting.enabled) return form.hosting.url === null ? form : { ...form, hosting: noHosting };
  return { ...form, hosting: { enabled: true, url: `${publicBaseUrlOf(services).replace(/\/+$/, '')}${hostedPagePath(form.id)}` } };
}

export const appearanceOf = (input: Partial<Form['appearance']> | undefined): Form['appearance'] => ({ ...defaultAppearance, ...input });
