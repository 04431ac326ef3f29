import type { ComponentChildren } from 'preact';

/**
 * A wide table's own horizontal scroll (at 360 px the page itself never scrolls sideways): a named region a keyboard
 * can reach and scroll with the arrow keys, even when the table holds nothing focusable.
 */
export function TableScroller(props: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be focusable to scroll by keyboard.
    <section class="table-wrap" aria-label={props.label} tabIndex={0}>
      {props.children}
    </section>
  );
}
