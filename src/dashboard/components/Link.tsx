import type { ComponentChildren } from 'preact';
import { hrefOf, navigate } from '../router.js';

/** A link inside the dashboard: a real `<a href>` (open in a new tab works), followed without reloading the page. */
export function Link(props: { to: string; children: ComponentChildren; current?: boolean; class?: string; onFollow?: () => void }) {
  const href = hrefOf(props.to);
  return (
    <a
      href={href}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(event) => {
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        if (navigate(href)) props.onFollow?.();
      }}
    >
      {props.children}
    </a>
  );
}
