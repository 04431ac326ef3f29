import { useBuilder } from '../../forms/builder-context.js';

/**
 * Move up, move down and remove for one item of a list in the builder (a step, a field, an option, a rule), named
 * with the item (`Move Step 2 up`) so that each button says what it acts on. Nothing for a viewer.
 */
export function ListControls(props: {
  name: string;
  index: number;
  count: number;
  onMove?: (by: -1 | 1) => void;
  onRemove: () => void;
  idPrefix: string;
}) {
  if (useBuilder().readOnly) return null;
  return (
    <div class="actions list-controls">
      {props.onMove && (
        <>
          <button type="button" id={`${props.idPrefix}-up`} disabled={props.index === 0} onClick={() => props.onMove?.(-1)}>
            Move up<span class="visually-hidden"> {props.name}</span>
          </button>
          <button type="button" id={`${props.idPrefix}-down`} disabled={props.index === props.count - 1} onClick={() => props.onMove?.(1)}>
            Move down<span class="visually-hidden"> {props.name}</span>
          </button>
        </>
      )}
      <button type="button" class="danger" onClick={props.onRemove}>
        Remove<span class="visually-hidden"> {props.name}</span>
      </button>
    </div>
  );
}
