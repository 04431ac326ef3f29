/**
 * Where the respondent landed, and what the submission takes from it: the page's address and campaign (UTM)
 * parameters as the submission's context, and the values of the form's hidden fields from its query string.
 */
import type { Schema } from '../../contract.js';
import type { PublicForm } from './form-rules.js';

const utmNames = ['source', 'medium', 'campaign', 'term', 'content'] as const;
/** What the contract's ContextText takes: 1 to 256 characters, no control characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the pattern refuses control characters.
const contextText = /^[^\x00-\x1F\x7F-\x9F]{1,256}$/;

/**
 * The page the respondent landed on. In an embed, that is the site's page holding the frame, which embed.js passes
 * as `parent_url` (its campaign parameters are the site's, not the frame's); never the frame's own address, which
 * carries the publishable key (`embed=`).
 */
export function landingUrl(): URL {
  const own = new URL(location.href);
  const parent = own.searchParams.get('parent_url');
  if (own.searchParams.has('embed') && parent !== null && parent.length <= 2048) {
    try {
      const url = new URL(parent);
      if (url.protocol === 'https:' || url.protocol === 'http:') return url;
    } catch {
      // Not a URL: the frame's own address below.
    }
  }
  own.searchParams.delete('embed');
  own.searchParams.delete('parent_url');
  return own;
}

/** The submission's context: the landing page and its UTM parameters, each only if the contract takes it. */
export function contextOf(landing: URL): Schema<'PublicSubmissionContext'> {
  const utm: Record<string, string> = {};
  for (const name of utmNames) {
    const value = landing.searchParams.get(`utm_${name}`);
    if (value !== null && contextText.test(value)) utm[name] = value;
  }
  return {
    ...(landing.href.length <= 2048 ? { landing_url: landing.href } : {}),
    ...(Object.keys(utm).length > 0 ? { utm } : {}),
  };
}

/** Hidden fields take their values from the landing page's query string (`?utm_source=…`), as links carry them. */
export function hiddenValues(form: PublicForm, landing: URL): Record<string, string> {
  const hidden: Record<string, string> = {};
  for (const field of form.steps.flatMap((step) => step.fields)) {
    const value = landing.searchParams.get(field.ref);
    if (field.type === 'hidden' && value !== null) hidden[field.ref] = value;
  }
  return hidden;
}
