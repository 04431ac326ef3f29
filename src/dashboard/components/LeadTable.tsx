import type { FormSummary, Submission, SubmissionListQuery } from '../../client/schemas.js';
import { formatDateTime, formatNumber } from '../format.js';
import { Link } from './Link.js';

/** The first answer that is an email address: how a person tells leads apart in a list. */
export const contactOf = (lead: Submission): string | undefined =>
  Object.values(lead.answers).find((answer): answer is string => typeof answer === 'string' && /^[^\s@]+@[^\s@]+$/.test(answer));

/** `aria-sort` of a column the list is ordered by. */
function sortOf(sort: SubmissionListQuery['sort'], column: 'created_at' | 'score'): 'ascending' | 'descending' | undefined {
  const order = sort ?? '-created_at';
  if (order === column) return 'ascending';
  if (order === `-${column}`) return 'descending';
  return undefined;
}

/** One page of leads (submissions), each linked to its own page; the column the list is sorted by says so. */
export function LeadTable(props: { leads: Submission[]; forms: FormSummary[]; sort: SubmissionListQuery['sort'] }) {
  const formName = (id: string) => props.forms.find((form) => form.id === id)?.name ?? id;
  return (
    <div class="table-wrap">
      <table class="lead-table">
        <caption>Leads matching the filters</caption>
        <thead>
          <tr>
            <th scope="col">Lead</th>
            <th scope="col">Form</th>
            <th scope="col">Status</th>
            <th scope="col" class="number" aria-sort={sortOf(props.sort, 'score')}>
              Score
            </th>
            <th scope="col">Grade</th>
            <th scope="col">UTM source</th>
            <th scope="col" aria-sort={sortOf(props.sort, 'created_at')}>
              Created
            </th>
          </tr>
        </thead>
        <tbody>
          {props.leads.map((lead) => (
            <tr key={lead.id}>
              <th scope="row">
                <Link to={`leads/${lead.id}`}>{contactOf(lead) ?? lead.id}</Link>
              </th>
              <td>{formName(lead.form_id)}</td>
              <td>{lead.status}</td>
              <td class="number">{formatNumber(lead.score)}</td>
              <td>{lead.grade ?? '—'}</td>
              <td>{lead.context.utm.source ?? '—'}</td>
              <td>{formatDateTime(lead.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
