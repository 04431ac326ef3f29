/**
 * `GET /embed.js`: `<script src="https://…/embed.js" data-form="form_…" data-key="svc_pub_…" async></script>` puts the
 * hosted form's page in an iframe right after the script. An iframe, not a shadow root: the page's CSS and the site's
 * cannot reach each other in either direction (a shadow root still inherits fonts, colours and custom properties), and
 * the page keeps its own origin, Content-Security-Policy and storage. The page sends its height; the frame follows it.
 * The site's page address goes to the frame (`parent_url`): it is where the respondent landed, with the campaign's
 * UTM parameters, which the frame cannot read otherwise. After completion, a form with a redirect address asks this
 * script to send the whole window there (./frame-height.ts): only the frame can say when, only the site's page can go.
 */
import { heightMessage, redirectMessage } from './frame-height.js';

/** The form's redirect address as the contract allows it: an absolute https:// URL without credentials. */
function redirectTarget(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  return url.protocol === 'https:' && url.username === '' && url.password === '' ? url.href : undefined;
}

const script = document.currentScript as HTMLScriptElement | null;
const formId = script?.dataset.form;
const key = script?.dataset.key;

if (script && formId && key) {
  const origin = new URL(script.src).origin;
  const frame = document.createElement('iframe');
  const landing =
    /^https?:$/.test(location.protocol) && location.href.length <= 2048 ? `&parent_url=${encodeURIComponent(location.href)}` : '';
  frame.src = `${origin}/f/${encodeURIComponent(formId)}?embed=${encodeURIComponent(key)}${landing}`;
  frame.title = script.dataset.title ?? 'Form';
  // Through the CSSOM: works under the site's own Content-Security-Policy, where a style attribute might not.
  Object.assign(frame.style, { display: 'block', width: '100%', maxWidth: '40rem', height: '32rem', border: '0', colorScheme: 'normal' });
  script.after(frame);
  let leaving = false;
  window.addEventListener('message', (event: MessageEvent) => {
    // Only the frame this script made, showing the service's page: another frame or window of the site could post
    // the same shapes.
    if (event.origin !== origin || event.source !== frame.contentWindow) return;
    const data = event.data as { type?: unknown; height?: unknown; url?: unknown } | null;
    if (data?.type === heightMessage && typeof data.height === 'number' && Number.isFinite(data.height) && data.height > 0) {
      frame.style.height = `${Math.ceil(data.height)}px`;
    } else if (data?.type === redirectMessage && !leaving) {
      const target = redirectTarget(data.url);
      if (target === undefined) return;
      leaving = true;
      window.location.assign(target);
    }
  });
}
