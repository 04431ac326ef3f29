/**
 * Forgetting a person: every submission of the caller's environment whose `email` answers carry the address,
 * in every form of the workspace, erased in one transaction (see the store's `erase` for what goes with them).
 * The address is used for the lookup and forgotten: the audit event and the response hold only counts, and the
 * `submission.erased` events only ids and counts.
 */

import type { Schema } from '../../contract.js';
import type { ErasureResult } from '../../store/submission-store.js';
import { actorOf, assertWorkspaceWide, type Principal } from '../access.js';
import { readAnswer } from '../answers.js';
import type { DomainEvent } from '../events.js';
import { outboxOf } from '../outbox.js';
import type { FormDefinition } from '../schema-types.js';
import { type Services, timestamp } from '../services.js';

type SubmissionErasure = Omit<Schema<'SubmissionErasure'>, 'request_id'>;

/**
 * The answers an erasure can find a person by: each string answer to an `email` field of the definition, as
 * given (the store normalises them). The stores derive the same list in SQL from stored answers
 * (`indexSubmissionEmailsSql`); a new submission hands it over instead, which spares parsing the definition again.
 */
export function emailAnswersOf(definition: Pick<FormDefinition, 'steps'>, answers: Record<string, unknown>): string[] {
  const found: string[] = [];
  for (const step of definition.steps) {
    for (const field of step.fields) {
      const answer = readAnswer(answers, field.ref);
      if (field.type === 'email' && typeof answer === 'string') found.push(answer);
    }
  }
  return found;
}

export async function eraseSubmissions(services: Services, principal: Principal, email: string): Promise<SubmissionErasure> {
  // An erasure reaches every form; a key that sees only some of them cannot promise the person is forgotten.
  assertWorkspaceWide(principal, 'erase submissions across the workspace');
  const at = timestamp(services);
  const partition = { workspaceId: principal.workspace.id, environment: principal.environment };
  const erasure = (deleted: { deletedSubmissions: number; canceledDeliveries: number }): SubmissionErasure => ({
    object: 'submission_erasure',
    environment: principal.environment,
    deleted_submissions: deleted.deletedSubmissions,
    canceled_deliveries: deleted.canceledDeliveries,
    erased_at: at,
  });
  const result = await services.store.submissions.erase(
    partition,
    email,
    ({ deletedSubmissions }) => ({
      ...partition,
      type: 'submissions.erased',
      actor: actorOf(principal),
      target: { type: 'workspace', id: principal.workspace.id, name: principal.workspace.name },
      reason: `Erased ${deletedSubmissions} ${deletedSubmissions === 1 ? 'submission' : 'submissions'} carrying one email address.`,
      at,
    }),
    outboxOf(services, (deleted) => ({ events: erasedEvents(principal, deleted.erased, at), returns: erasure(deleted) })),
  );
  return erasure(result);
}

/** The most submission ids one `submission.erased` event lists (the document's `maxItems`). */
export const ERASED_IDS_PER_EVENT = 1000;

/**
 * `submission.erased`: one event per form the erasure deleted submissions of, so that an integration limited to a
 * form receives its own; a form with more than `ERASED_IDS_PER_EVENT` of them gets several, each with the total
 * `count`. Ids only: the address and the answers are what an erasure forgets.
 */
export function erasedEvents(principal: Principal, erased: ErasureResult['erased'], at: string): DomainEvent[] {
  const byForm = new Map<string, string[]>();
  for (const { id, formId } of erased) {
    const ids = byForm.get(formId) ?? [];
    ids.push(id);
    byForm.set(formId, ids);
  }
  const events: DomainEvent[] = [];
  for (const [formId, ids] of byForm) {
    for (let start = 0; start < ids.length; start += ERASED_IDS_PER_EVENT) {
      const object = {
        object: 'erased_submissions',
        form_id: formId,
        submission_ids: ids.slice(start, start + ERASED_IDS_PER_EVENT),
        count: ids.length,
        erased_at: at,
      };
      events.push({
        workspaceId: principal.workspace.id,
        environment: principal.environment,
        type: 'submission.erased',
        formId,
        data: { object },
      });
    }
  }
  return events;
}
