/**
 * The page's side of embed.js (./embed.ts) when it is framed: it tells the parent how tall its content is, each time
 * that changes, so the frame neither scrolls nor leaves blank space under the form or its ending; and, after
 * completion, asks the parent to take the whole window to the form's redirect address.
 *
 * Messages go to any parent origin (`'*'`): the page's `frame-ancestors` already names the only origins that may frame
 * it (those of the embedding key), and a height or a redirect address is all they carry.
 */

export const heightMessage = 'form-funnel:height';
export const redirectMessage = 'form-funnel:redirect';

const isFramed = (): boolean => window.parent !== window;

const px = (value: string): number => Number.parseFloat(value) || 0;

/**
 * The height of the document's content, in CSS pixels: the root element's box, which holds the body's margins and
 * every margin inside it, with the root's own margins. Not the document's `scrollHeight`, which is never less than the
 * frame's current height (so the frame could only grow).
 */
export function contentHeight(): number {
  const root = document.documentElement;
  const style = getComputedStyle(root);
  return root.getBoundingClientRect().height + px(style.marginTop) + px(style.marginBottom);
}

/**
 * Inside a frame, sends the content's height to the parent now and whenever it changes, in either direction: a step
 * taller or shorter than the last, an error shown or cleared, the ending screen, a logo loaded, a narrower frame.
 * Nothing outside a frame.
 */
export function reportFrameHeight(formId: string): void {
  if (!isFramed()) return;
  // The frame takes its height from the content: a `min-height: 100vh` (or `height: 100%`) on the root or the body
  // would hold the content at the frame's height, which could then never shrink. Set through the CSSOM, which the
  // page's Content-Security-Policy allows (a style attribute it would not).
  for (const element of [document.documentElement, document.body]) Object.assign(element.style, { minHeight: '0', height: 'auto' });
  let sent = -1;
  const send = () => {
    const height = contentHeight();
    if (Math.abs(height - sent) < 0.5) return;
    sent = height;
    window.parent.postMessage({ type: heightMessage, form: formId, height }, '*');
  };
  // The root's box changes size whenever the content does.
  new ResizeObserver(send).observe(document.documentElement);
  send();
}

/**
 * Asks the parent (embed.js) to send the whole window to `url`, the form's redirect address after completion. False
 * when the page is not framed: the page then goes there itself (`location.assign`). Inside a frame, only the parent
 * can leave the site's page for the address; embed.js takes the message from its own frame only, and only an
 * https:// address.
 */
export function askParentToNavigate(url: string): boolean {
  if (!isFramed()) return false;
  window.parent.postMessage({ type: redirectMessage, url }, '*');
  return true;
}
