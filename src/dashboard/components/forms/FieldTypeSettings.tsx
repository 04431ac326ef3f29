import type { Field } from '../../forms/draft.js';
import { DraftCheckbox } from './DraftCheckbox.js';
import { DraftNumber } from './DraftNumber.js';
import { DraftText } from './DraftText.js';

/** The field with one member set, or left out when `value` is undefined (the API then applies its default). */
function withMember(field: Field, member: string, value: unknown): Field {
  const copy: Record<string, unknown> = { ...field };
  if (value === undefined) delete copy[member];
  else copy[member] = value;
  return copy as unknown as Field;
}

/** The settings only some field types have: text lengths, number bounds, selections, rating scale, date range. */
export function FieldTypeSettings(props: { field: Field; pointer: string; onField: (field: Field) => void }) {
  const { field, pointer: at } = props;
  const number = (member: string, label: string, value: number | undefined, hint?: string) => (
    <DraftNumber
      pointer={`${at}/${member}`}
      label={label}
      hint={hint}
      value={value}
      integer={field.type !== 'number'}
      onValue={(next) => props.onField(withMember(field, member, next))}
    />
  );
  switch (field.type) {
    case 'short_text':
    case 'long_text':
      return (
        <div class="type-settings">
          {number('min_length', 'Fewest characters', field.min_length)}
          {number('max_length', 'Most characters', field.max_length)}
        </div>
      );
    case 'number':
      return (
        <div class="type-settings">
          {number('minimum', 'Smallest number', field.minimum)}
          {number('maximum', 'Largest number', field.maximum)}
          <DraftCheckbox
            pointer={`${at}/integer`}
            label="Whole numbers only"
            checked={field.integer === true}
            onValue={(integer) => props.onField(withMember(field, 'integer', integer || undefined))}
          />
        </div>
      );
    case 'multiple_choice':
      return (
        <div class="type-settings">
          {number('min_selections', 'Fewest choices', field.min_selections)}
          {number('max_selections', 'Most choices', field.max_selections)}
        </div>
      );
    case 'rating':
      return <div class="type-settings">{number('scale', 'Highest rating', field.scale, 'From 3 to 10.')}</div>;
    case 'date':
      return (
        <div class="type-settings">
          {(['min_date', 'max_date'] as const).map((member) => (
            <DraftText
              key={member}
              pointer={`${at}/${member}`}
              label={member === 'min_date' ? 'Earliest date' : 'Latest date'}
              type="date"
              value={field[member]}
              onValue={(value) => props.onField(withMember(field, member, value === '' ? undefined : value))}
            />
          ))}
        </div>
      );
    default:
      return null;
  }
}
