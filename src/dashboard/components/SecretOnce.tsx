import { CopyButton } from './CopyButton.js';

/** A secret the API returns once (a key, a signing secret): shown with a copy button and a warning it will not return. */
export function SecretOnce(props: { label: string; secret: string; onDone: () => void }) {
  return (
    <section class="notice" aria-label={props.label}>
      <p>
        <strong>{props.label}</strong>: copy it now. It is shown only once; the service keeps only its hash.
      </p>
      <p class="secret">{props.secret}</p>
      <div class="actions">
        <CopyButton text={props.secret} />
        <button type="button" onClick={props.onDone}>
          Done
        </button>
      </div>
    </section>
  );
}
