import { focusSoon, idAt, useBuilder } from '../../forms/builder-context.js';
import { removed, replaced, type Scoring } from '../../forms/draft.js';
import { FieldIssues } from '../FieldIssues.js';
import { DraftNumber } from './DraftNumber.js';
import { DraftText } from './DraftText.js';
import { ListControls } from './ListControls.js';

type Grade = Scoring['grades'][number];

/** The lead grades: a lead gets the highest grade whose minimum score its score reaches (none below them all). */
export function GradesEditor(props: { grades: Grade[]; onGrades: (grades: Grade[]) => void }) {
  const { error, readOnly } = useBuilder();
  const { grades } = props;
  return (
    <div id={idAt('/scoring/grades')} tabIndex={-1}>
      <h3>Grades</h3>
      <p class="muted">A lead gets the highest grade whose minimum score its score reaches.</p>
      <FieldIssues id={`${idAt('/scoring/grades')}-issues`} error={error} pointer="/scoring/grades" exact />
      {grades.map((grade, index) => {
        const at = `/scoring/grades/${index}`;
        const name = `Grade ${index + 1}`;
        const set = (next: Grade) => props.onGrades(replaced(grades, index, next));
        return (
          <fieldset class="grade" key={index} id={idAt(at)} tabIndex={-1}>
            <legend>{name}</legend>
            <FieldIssues id={`${idAt(at)}-issues`} error={error} pointer={at} exact />
            <div class="rule-basics">
              <DraftText pointer={`${at}/label`} label="Label" value={grade.label} onValue={(label) => set({ ...grade, label })} />
              <DraftNumber
                pointer={`${at}/min_score`}
                label="Minimum score"
                value={grade.min_score}
                onValue={(min_score) => set({ ...grade, min_score: min_score as number })}
              />
            </div>
            <ListControls
              name={name}
              idPrefix={idAt(at)}
              index={index}
              count={grades.length}
              onRemove={() => props.onGrades(removed(grades, index))}
            />
          </fieldset>
        );
      })}
      {!readOnly && (
        <button
          type="button"
          onClick={() => {
            props.onGrades([...grades, { label: '', min_score: 0 }]);
            focusSoon(idAt(`/scoring/grades/${grades.length}/label`));
          }}
        >
          Add grade
        </button>
      )}
    </div>
  );
}
