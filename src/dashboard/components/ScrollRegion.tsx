import type { ComponentChildren } from 'preact';

/**
 * A wide table that scrolls sideways inside itself on a narrow screen rather than the page: a named region that
 * takes keyboard focus, so a person without a pointer can scroll it with the arrow keys too.
 */
export function ScrollRegion(props: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to be scrolled
    <section class="table-wrap" aria-label={props.label} tabIndex={0}>
      {props.children}
    </section>
  );
}
