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
 * The height of the document's content, in CSS pixels: the lowest bottom edge of the body's rendered children (with
 * their bottom margins), plus the body's own bottom padding, border and margin. Not the document's `scrollHeight`,
 * which is never less than the frame's current height (so the frame could only grow), nor the body's height, which a
 * `min-height: 100vh` would hold at the frame's height.
 */
export function contentHeight(): number {
  const body = document.body;
  let bottom = 0;
  for (const child of body.children) {
    // Elements that are not rendered (a script, `display: none`) have no boxes.
    if (child.getClientRects().length === 0) continue;
    bottom = Math.max(bottom, child.getBoundingClientRect().bottom + px(getComputedStyle(child).marginBottom));
  }
  const style = getComputedStyle(body);
  return bottom + window.scrollY + px(style.paddingBottom) + px(style.borderBottomWidth) + px(style.marginBottom);
}

/**
 * Inside a frame, sends the content's height to the parent now and whenever it changes, in either direction: a step
 * taller or shorter than the last, an error shown or cleared, the ending screen, a logo loaded, a narrower frame.
 * Nothing outside a frame.
 */
export function reportFrameHeight(formId: string): void {
  if (!isFramed()) return;
  let sent = -1;
  const send = () => {
    const height = contentHeight();
    if (Math.abs(height - sent) < 0.5) return;
    sent = height;
    window.parent.postMessage({ type: heightMessage, form: formId, height }, '*');
  };
  // The body's children rather than the body: a body held at a minimum height would not resize when they shrink.
  const sizes = new ResizeObserver(send);
  sizes.observe(document.body);
  for (const child of document.body.children) sizes.observe(child);
  new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) if (node instanceof Element) sizes.observe(node);
    send();
  }).observe(document.body, { childList: true });
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
