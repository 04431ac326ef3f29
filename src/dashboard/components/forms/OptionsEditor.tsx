import { focusSoon, idAt, useBuilder } from '../../forms/builder-context.js';
import { type ChoiceOption, moved, removed, replaced } from '../../forms/draft.js';
import { followsLabel, keyFrom, newOption } from '../../forms/field-types.js';
import { FieldIssues } from '../FieldIssues.js';
import { DraftNumber } from './DraftNumber.js';
import { DraftText } from './DraftText.js';
import { ListControls } from './ListControls.js';

/**
 * A choice field's options: what the respondent reads, the value stored in answers, and the points the option adds to
 * the lead score. A new option's value follows its label until the person sets one.
 */
export function OptionsEditor(props: { options: ChoiceOption[]; pointer: string; onOptions: (options: ChoiceOption[]) => void }) {
  const { error, readOnly } = useBuilder();
  const { options, pointer } = props;
  const listPointer = `${pointer}/options`;
  return (
    <fieldset class="options" id={idAt(listPointer)} tabIndex={-1}>
      <legend>Options</legend>
      <FieldIssues id={`${idAt(listPointer)}-issues`} error={error} pointer={listPointer} exact />
      {options.map((option, index) => {
        const at = `${listPointer}/${index}`;
        const name = `Option ${index + 1}`;
        const set = (next: ChoiceOption) => props.onOptions(replaced(options, index, next));
        return (
          <fieldset class="option" key={index} id={idAt(at)} tabIndex={-1}>
            <legend>{name}</legend>
            <FieldIssues id={`${idAt(at)}-issues`} error={error} pointer={at} exact />
            <div class="option-inputs">
              <DraftText
                pointer={`${at}/label`}
                label="Label"
                value={option.label}
                onValue={(label) =>
                  set({
                    ...option,
                    label,
                    value: followsLabel(option.value, option.label, /^option_\d+$/) && keyFrom(label) ? keyFrom(label) : option.value,
                  })
                }
              />
              <DraftText pointer={`${at}/value`} label="Value" value={option.value} onValue={(value) => set({ ...option, value })} />
              <DraftNumber
                pointer={`${at}/score`}
                label="Score"
                value={option.score}
                onValue={(score) => {
                  const { score: _old, ...rest } = option;
                  set((score === undefined ? rest : { ...rest, score }) as ChoiceOption);
                }}
              />
            </div>
            <ListControls
              name={name}
              idPrefix={idAt(at)}
              index={index}
              count={options.length}
              onMove={(by) => {
                props.onOptions(moved(options, index, by));
                const to = idAt(`${listPointer}/${index + by}`);
                focusSoon(`${to}-${by < 0 ? 'up' : 'down'}`, to);
              }}
              onRemove={() => props.onOptions(removed(options, index))}
            />
          </fieldset>
        );
      })}
      {!readOnly && (
        <button
          type="button"
          onClick={() => {
            props.onOptions([...options, newOption(options)]);
            focusSoon(idAt(`${listPointer}/${options.length}/label`));
          }}
        >
          Add option
        </button>
      )}
    </fieldset>
  );
}
