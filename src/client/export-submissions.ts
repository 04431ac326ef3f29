import type { FormFunnelClient } from './create-form-funnel-client.js';
import type { paths, Schema } from './schemas.js';
import { unwrap } from './unwrap.js';

/** The export's filters and sort, as the contract types them (`format` is NDJSON here: records are parsed). */
export type ExportSubmissionsQuery = Omit<NonNullable<paths['/submissions/export']['get']['parameters']['query']>, 'format'>;

export interface ExportSubmissionsOptions {
  /** How many times a broken download is resumed after the last record received (default 3). */
  maxResumes?: number;
}

/** Thrown while reading the body: the connection broke, so the download can resume. */
class BrokenDownload extends Error {}

/**
 * Every submission that matches the filters, as parsed records, read from the NDJSON export as it arrives:
 *
 *   for await (const lead of exportSubmissions(client, { form_id, grade: ['hot'], sort: '-score' })) { … }
 *
 * Memory stays flat however many records there are. When the connection breaks mid-download, the export is
 * requested again after the last record received, by its id and its sort key (`starting_after_created_at` or
 * `starting_after_score`), so no record is lost or repeated even if that submission changed or was deleted
 * meanwhile (`maxResumes` times at most); an error answer throws a FormFunnelError as `unwrap` does.
 */
export async function* exportSubmissions(
  client: FormFunnelClient,
  query: ExportSubmissionsQuery = {},
  options: ExportSubmissionsOptions = {},
): AsyncGenerator<Schema<'Submission'>, void, undefined> {
  let after: ExportSubmissionsQuery = {};
  let resumes = options.maxResumes ?? 3;
  for (;;) {
    const result = await client.GET('/submissions/export', {
      params: { query: { ...query, format: 'ndjson', ...after } },
      parseAs: 'stream',
    });
    const body = unwrap(result);
    try {
      for await (const line of linesOf(body as ReadableStream<Uint8Array>)) {
        const record = JSON.parse(line) as Schema<'Submission'>;
        after = resumeAfter(record, query.sort);
        yield record;
      }
      return;
    } catch (error) {
      if (!(error instanceof BrokenDownload) || resumes-- <= 0) throw error instanceof BrokenDownload ? error.cause : error;
    }
  }
}

/** The export's place after `record`: its id and the key `sort` orders by, as the record showed them. */
function resumeAfter(record: Schema<'Submission'>, sort: ExportSubmissionsQuery['sort'] = '-created_at'): ExportSubmissionsQuery {
  return sort.endsWith('score')
    ? { starting_after: record.id, starting_after_score: record.score }
    : { starting_after: record.id, starting_after_created_at: record.created_at };
}

/** Complete lines of the body; a last line without its line feed means the download was cut short. */
async function* linesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw new BrokenDownload('The export download broke off.', { cause: error });
      }
      if (chunk.done) break;
      pending += chunk.value;
      let end = pending.indexOf('\n');
      while (end !== -1) {
        yield pending.slice(0, end);
        pending = pending.slice(end + 1);
        end = pending.indexOf('\n');
      }
    }
  } finally {
    reader.releaseLock();
  }
  if (pending !== '') throw new BrokenDownload('The export download ended inside a record.', { cause: new Error('truncated NDJSON') });
}
