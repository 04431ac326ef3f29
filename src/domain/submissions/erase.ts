/**
 * Forgetting a person: every submission of the caller's environment whose `email` answers carry the address,
 * in every form of the workspace, erased in one transaction (see the store's `erase` for what goes with them).
 * The address is used for the lookup and forgotten: the audit event and the response hold only counts.
 */

import type { Schema } from '../../contract.js';
import { actorOf, assertWorkspaceWide, type Principal } from '../access.js';
import { readAnswer } from '../answers.js';
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
    outboxOf(services, (deleted) => ({ returns: erasure(deleted) })),
  );
  return erasure(result);
}
