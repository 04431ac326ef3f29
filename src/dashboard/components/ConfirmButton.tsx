import { useState } from 'preact/hooks';

/**
 * A destructive action asks once more, in place: the first press shows "Confirm" and "Cancel" (keyboard focus moves to
 * Cancel, the safe choice), the second does it. No modal dialog to trap focus in.
 */
export function ConfirmButton(props: { label: string; confirm: string; onConfirm: () => void | Promise<void>; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking) {
    return (
      <button type="button" class="danger" disabled={props.disabled} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <fieldset class="confirm">
      <legend class="visually-hidden">{props.label}</legend>
      <span>{props.confirm}</span>{' '}
      <button
        type="button"
        class="danger"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await props.onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        Confirm
      </button>{' '}
      <button type="button" ref={(button) => button?.focus()} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </fieldset>
  );
}
