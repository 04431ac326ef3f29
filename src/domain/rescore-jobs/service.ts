/**
 * Bulk rescoring, as a job: `POST /v1/forms/{id}/rescore` queues one and `GET /v1/rescore_jobs/{id}` reports its
 * progress; a worker in every server process runs queued jobs (./worker.ts). A job belongs to the caller's
 * environment and rescores that environment's submissions of the form only. It pins the form's version when it is
 * created, so every submission it visits gets the same scoring, whatever changes the form sees meanwhile.
 */
import type { Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import type { RescoreJobRecord } from '../../store/rescore-job-store.js';
import { assertFormVisible, type Principal } from '../access.js';
import { conflict, notFound } from '../errors.js';
import { findVisibleForm } from '../forms/service.js';
import { outboxOf } from '../outbox.js';
import { type Services, timestamp } from '../services.js';
import { rethrowAsNotFound } from '../store-refusals.js';

type RescoreJob = Schema<'RescoreJob'>;

const partitionOf = (principal: Principal) => ({ workspaceId: principal.workspace.id, environment: principal.environment });

export async function startRescoreJob(services: Services, principal: Principal, formId: string): Promise<RescoreJob> {
  const { form } = await findVisibleForm(services, principal, formId);
  const record: RescoreJobRecord = {
    ...partitionOf(principal),
    job: {
      id: newId('rsj'),
      object: 'rescore_job',
      form_id: form.id,
      form_version: form.version,
      status: 'queued',
      test: principal.environment === 'test',
      total: 0,
      processed: 0,
      changed: 0,
      failure_message: null,
      created_at: timestamp(services),
      started_at: null,
      finished_at: null,
    },
  };
  const created = await services.store.rescoreJobs
    .create(
      record,
      outboxOf(services, (result) => ('activeId' in result ? undefined : { returns: result })),
    )
    .catch(rethrowAsNotFound);
  if ('activeId' in created) {
    throw conflict('rescore_in_progress', `Form ${form.id} is being rescored by ${created.activeId}; wait until it finishes.`);
  }
  return created;
}

export async function getRescoreJob(services: Services, principal: Principal, id: string): Promise<RescoreJob> {
  const job = await services.store.rescoreJobs.get(partitionOf(principal), id);
  if (!job) throw notFound('rescore job', id);
  if (principal.attachment.type !== 'workspace') {
    // An attached key sees the jobs of the forms it reaches, as it sees their submissions.
    const form = await services.store.forms.get(principal.workspace.id, job.form_id);
    if (!form) throw notFound('rescore job', id);
    assertFormVisible(principal, form.form);
  }
  return job;
}
