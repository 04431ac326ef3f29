/**
 * Keyset paging as the API does it: "Next" asks for `starting_after` the last row, "Previous" for `ending_before` the
 * first; `has_more` says whether there is more in the direction just read.
 */
export function Pager(props: { label: string; hasPrevious: boolean; hasNext: boolean; onPrevious: () => void; onNext: () => void }) {
  if (!props.hasPrevious && !props.hasNext) return null;
  return (
    <nav class="actions" aria-label={props.label}>
      <button type="button" disabled={!props.hasPrevious} onClick={props.onPrevious}>
        Previous page
      </button>
      <button type="button" disabled={!props.hasNext} onClick={props.onNext}>
        Next page
      </button>
    </nav>
  );
}
