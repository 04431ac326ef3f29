/** Shown while a screen's data loads: a status a screen reader announces, not a spinner only the eye sees. */
export function Loading(props: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {props.what}…
    </p>
  );
}
