/**
 * The submissions export: every submission of a filtered list, read page by page in the list's order so the
 * download starts at once and costs the server one page of memory whatever its size. Records are NDJSON lines
 * or CSV rows; a broken download resumes after the last complete record: its id and its sort key, so the place
 * holds even if that submission has changed or gone since.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Schema } from '../../contract.js';
import type { KeysetPosition, Page, PageRequest } from '../../store/page.js';
import { defaultSearchScan } from '../../store/search-scan.js';
import type { Principal } from '../access.js';
import { normalisedTimestamp } from '../client-timestamps.js';
import { badRequest } from '../errors.js';
import { findVisibleForm, KEPT_VERSIONS } from '../forms/service.js';
import type { Services } from '../services.js';
import { csvRow } from './csv.js';
import { type FindQuery, filterOf, orderOf } from './find.js';
import { assertFilterReachable } from './service.js';

type Submission = Schema<'Submission'>;

export type ExportFormat = 'csv' | 'ndjson';

/** Rows read per store query: large enough that a million rows are 2,000 queries, small enough to stay flat. */
export const exportPageSize = 500;

/**
 * The columns every CSV export starts with, before the form's field refs: the submission's own, then its
 * context flattened, then its metadata as JSON text. A dot never appears in a field ref, so `context.…` names
 * cannot collide with one (a form may well have a hidden field named `utm_source`).
 */
const fixedColumns = [
  ...['id', 'form_id', 'form_version', 'created_at', 'updated_at', 'completed_at', 'status', 'test', 'score', 'grade'],
  ...['context.user_agent', 'context.referrer', 'context.landing_url'],
  ...['context.utm_source', 'context.utm_medium', 'context.utm_campaign', 'context.utm_term', 'context.utm_content'],
  'metadata',
] as const;

/** Where a resumed download starts: the last record received, by id and (best) with its sort key too. */
export interface ExportResume {
  startingAfter?: string | undefined;
  startingAfterCreatedAt?: string | undefined;
  startingAfterScore?: number | undefined;
}

export interface SubmissionExport {
  /** The text of the download, chunk by chunk (one chunk per page, the CSV header row first). */
  chunks: AsyncIterable<string>;
}

/**
 * Checks everything that can be refused (parameters, the form, the cursor) and reads the first page before the
 * first byte is written, so each refusal is still a problem response; the rest is read as the download is
 * consumed.
 */
export async function exportSubmissions(
  services: Services,
  principal: Principal,
  query: FindQuery,
  format: ExportFormat,
  resume: ExportResume = {},
): Promise<SubmissionExport> {
  const filter = filterOf(query);
  const order = orderOf(query.sort);
  const start = startOf(resume, order.key);
  if (format === 'csv' && filter.formId === undefined) {
    throw badRequest('invalid_parameters', 'A CSV export needs form_id: its columns are the fields of one form. NDJSON exports any list.', [
      { location: 'query', pointer: '/form_id', code: 'required', message: 'required when format is csv' },
    ]);
  }
  await assertFilterReachable(services, principal, filter.formId);
  // A form named in the filter must be one this key can see, in either format: an unknown form (or another
  // workspace's, or a test-only one under a live key) is 404 as reading it would be, never an empty download
  // that looks like a form without submissions. Looked up here, before the first byte, while a problem can
  // still be the answer.
  const form = filter.formId === undefined ? undefined : (await findVisibleForm(services, principal, filter.formId)).form;
  const refs = form && format === 'csv' ? await fieldRefs(services, form) : [];
  const partition = { workspaceId: principal.workspace.id, environment: principal.environment, attachment: principal.attachment };
  // One download that must be complete: a search reads on to the end of the list, a window at a time with the
  // event loop's turn between windows (no cap; every window is one step of bounded size).
  const scan = { window: (services.searchScan ?? defaultSearchScan).window, cap: Number.POSITIVE_INFINITY };
  const list = (page: Omit<PageRequest, 'limit'>) =>
    services.store.submissions.list(partition, filter, { limit: exportPageSize, ...page }, order, scan);
  // With `q` each page is a scan, which takes its turn among the workspace's (concurrency-slots.ts); it waits
  // rather than being refused, since a refusal in mid-download would break it.
  const { scans } = services.concurrency ?? {};
  const read = (page: Omit<PageRequest, 'limit'>) =>
    filter.search !== undefined && scans ? scans.run(principal.workspace.id, () => list(page), { alwaysWait: true }) : list(page);
  const first = await read(start);
  const encode = format === 'csv' ? (submission: Submission) => csvRow(csvCells(submission, refs)) : ndjsonLine;

  async function* chunks(): AsyncGenerator<string> {
    if (format === 'csv') yield csvRow([...fixedColumns, ...refs]);
    let page: Page<Submission> = first;
    for (;;) {
      if (page.data.length > 0) yield page.data.map(encode).join('');
      if (!page.hasMore) return;
      // The SQLite store reads synchronously: give other requests their turn between two pages.
      await nextTurn();
      // From the last row's place as it was read, never looked up again: the row may be gone or changed by now.
      const last = page.data.at(-1)!;
      page = await read({ after: { key: last[order.key], id: last.id } });
    }
  }
  return { chunks: chunks() };
}

/**
 * The first page's request: after the place the client names (id and sort key), or after the submission it
 * names by id alone (looked up, so it must still be in the list), or from the start.
 */
function startOf(resume: ExportResume, key: 'created_at' | 'score'): Omit<PageRequest, 'limit'> {
  const given = { created_at: resume.startingAfterCreatedAt, score: resume.startingAfterScore };
  const other = key === 'created_at' ? 'score' : 'created_at';
  if (given[other] !== undefined) {
    throw badRequest('invalid_parameters', `starting_after_${other} resumes a ${other} sort; this export is sorted by ${key}.`, [
      {
        location: 'query',
        pointer: `/starting_after_${other}`,
        code: 'mutually_exclusive',
        message: `cannot be combined with sort=${key}; use starting_after_${key}`,
      },
    ]);
  }
  const value = given[key];
  if (value === undefined) return { startingAfter: resume.startingAfter };
  if (resume.startingAfter === undefined) {
    throw badRequest('invalid_parameters', `starting_after_${key} is the sort key of the record starting_after names; send both.`, [
      { location: 'query', pointer: '/starting_after', code: 'required', message: `required with starting_after_${key}` },
    ]);
  }
  const after: KeysetPosition = {
    key: key === 'created_at' ? normalisedTimestamp(value as string, 'starting_after_created_at')! : value,
    id: resume.startingAfter,
  };
  return { after };
}

const ndjsonLine = (submission: Submission): string => `${JSON.stringify(submission)}\n`;

function csvCells(submission: Submission, refs: readonly string[]): Array<string | number | boolean | null> {
  const s = submission;
  const answers = refs.map((ref) => {
    // A `hidden` field's value arrives beside the answers, not among them.
    const answer = s.answers[ref] ?? s.hidden[ref];
    return Array.isArray(answer) ? answer.join('; ') : (answer ?? null);
  });
  const { user_agent, referrer, landing_url, utm } = s.context;
  return [
    ...[s.id, s.form_id, s.form_version, s.created_at, s.updated_at, s.completed_at, s.status, s.test, s.score, s.grade],
    ...[user_agent, referrer, landing_url, utm.source, utm.medium, utm.campaign, utm.term, utm.content],
    // The caller's own keys vary from row to row: one cell, the object as JSON text.
    JSON.stringify(s.metadata),
    ...answers,
  ];
}

/** Every field ref of the form's kept versions, in the order they first appear (oldest version first). */
async function fieldRefs(services: Services, form: Schema<'Form'>): Promise<string[]> {
  const refs = new Set<string>();
  for (let version = Math.max(1, form.version - KEPT_VERSIONS + 1); version < form.version; version++) {
    const snapshot = await services.store.forms.getVersion(form.id, version);
    for (const step of snapshot?.steps ?? []) for (const field of step.fields) refs.add(field.ref);
  }
  for (const step of form.steps) for (const field of step.fields) refs.add(field.ref);
  return [...refs];
}
