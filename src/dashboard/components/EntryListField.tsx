/**
 * A list typed one entry a line (allowed origins, an IP allowlist), with the API's issues about its entries under it,
 * each naming the entry it is about (list-issues.ts), read with the field.
 */
export function EntryListField(props: {
  id: string;
  label: string;
  hint: string;
  value: string;
  onInput: (value: string) => void;
  issues: string[];
}) {
  const invalid = props.issues.length > 0;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <p class="muted" id={`${props.id}-hint`}>
        {props.hint}
      </p>
      <textarea
        id={props.id}
        rows={3}
        value={props.value}
        aria-describedby={invalid ? `${props.id}-hint ${props.id}-issues` : `${props.id}-hint`}
        aria-invalid={invalid || undefined}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
      {invalid && (
        <ul class="field-issues" id={`${props.id}-issues`}>
          {props.issues.map((issue) => (
            <li key={issue}>{issue}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
