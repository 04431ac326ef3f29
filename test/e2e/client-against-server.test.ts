/**
 * The typed client against the reference server: a partner's life cycle of a form, with `unwrap` and
 * FormFunnelError, and every body checked against the bundled document with ajv, independently of the
 * server's own response validation. It runs against the app in this process (on the run's store) and against
 * the server as a scaled-out deployment starts it (`WORKERS=2` on PostgreSQL and Redis, the admin command
 * making the workspaces), so requests of one story land on different processes. Together with the Prism tests
 * this shows that the client, the document and the server agree.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createFormFunnelClient,
  exportSubmissions,
  type Form,
  type FormCreate,
  type FormFunnelClient,
  FormFunnelError,
  type FormSummary,
  paginate,
  type Schema,
  type SubmissionListQuery,
  unwrap,
} from '../../src/client/index.js';
import type { FetchResultLike } from '../../src/client/unwrap.js';
import { requestExample } from '../contract/support/document.js';
import { responseSchemaPointer, schemaErrors } from '../contract/support/schema-validator.js';
import { createTestApi } from '../support/harness.js';
import { fetchTrusting, type TrustingFetch } from './support/fetch-trusting.js';
import { startServerProcess, twoWorkersOnPostgresAndRedis } from './support/server-process.js';

/** A running server and a workspace in it, whichever way it was started. */
interface Target {
  baseUrl: string;
  certificate: string;
  liveAdminKey: string;
  workspaceId: string;
  /** Bootstraps another workspace on the same data and returns its live admin key and id. */
  otherWorkspace(): Promise<{ workspace_id: string; live_admin_key: string }>;
  close(): Promise<void>;
}

const targets: Array<{ name: string; start(): Promise<Target> }> = [
  {
    name: 'the app in process',
    start: async () => {
      const api = await createTestApi();
      return {
        baseUrl: api.baseUrl,
        certificate: api.certificate,
        liveAdminKey: api.workspace.live_admin_key,
        workspaceId: api.workspace.workspace_id,
        otherWorkspace: () => api.otherWorkspace(),
        close: api.close,
      };
    },
  },
  {
    name: 'the server process, WORKERS=2 on PostgreSQL and Redis',
    start: async () => {
      const server = await startServerProcess(twoWorkersOnPostgresAndRedis, { env: { HTTP_PORT: '' } });
      const bootstrap = async (name: string) =>
        JSON.parse(await server.admin('bootstrap', '--workspace', name, '--plan', 'business', '--json')) as {
          workspace_id: string;
          live_admin_key: string;
        };
      const workspace = await bootstrap('Acme');
      return {
        baseUrl: `https://localhost:${server.port}`,
        certificate: server.certificate,
        liveAdminKey: workspace.live_admin_key,
        workspaceId: workspace.workspace_id,
        otherWorkspace: () => bootstrap('Other'),
        close: server.stop,
      };
    },
  },
];

describe.each(targets)('the typed client against $name', ({ start }) => {
  let target: Target;
  let transport: TrustingFetch;
  let client: FormFunnelClient;

  const clientFor = (apiKey: string) =>
    createFormFunnelClient({ apiKey, baseUrl: `${target.baseUrl}/v1`, fetch: transport.fetch, maxRetries: 0 });

  beforeAll(async () => {
    target = await start();
    transport = fetchTrusting(target.certificate);
    client = clientFor(target.liveAdminKey);
  }, 120_000);
  afterAll(async () => {
    transport?.close();
    await target?.close();
  });

  /** The response as the document describes it: status, body valid against its schema, request id in header and body. */
  async function documented<Result extends FetchResultLike>(
    operationId: string,
    status: number,
    pending: Promise<Result>,
  ): Promise<Result> {
    const result = await pending;
    const body = result.response.ok ? result.data : result.error;
    expect(result.response.status, `${operationId}: ${JSON.stringify(body)}`).toBe(status);
    expect(schemaErrors(responseSchemaPointer(operationId, status), body), `${operationId} ${status} body against the document`).toEqual(
      [],
    );
    const requestId = result.response.headers.get('X-Request-Id');
    expect(requestId).toMatch(/^req_[0-9A-Za-z]{24}$/);
    expect((body as { request_id?: string }).request_id).toBe(requestId);
    return result;
  }

  /** unwrap's FormFunnelError for a documented problem response. */
  async function documentedProblem(operationId: string, status: number, pending: Promise<FetchResultLike>): Promise<FormFunnelError> {
    const result = await documented(operationId, status, pending);
    expect(result.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    try {
      unwrap(result);
    } catch (error) {
      expect(error).toBeInstanceOf(FormFunnelError);
      const problem = error as FormFunnelError;
      expect(problem.requestId).toBe(result.response.headers.get('X-Request-Id'));
      return problem;
    }
    throw new Error(`${operationId}: unwrap returned instead of throwing`);
  }

  const getForm = (id: string, on = client) => on.GET('/forms/{id}', { params: { path: { id } } });

  describe('a partner manages forms with the typed client', () => {
    // Shared by the steps below, which run in order and tell one story.
    let demo: Form;
    const pageForms: Form[] = [];

    it('when the document’s createForm example is sent, then 201 with Location and the form at version 1', async () => {
      const body = requestExample<FormCreate>('createForm');
      const result = await documented('createForm', 201, client.POST('/forms', { body }));
      demo = unwrap(result);
      expectTypeOf(demo).toExtend<Form>();

      expect(result.response.headers.get('Location')).toBe(`/v1/forms/${demo.id}`);
      expect(demo).toMatchObject({ object: 'form', name: body.name, slug: body.slug, version: 1, status: 'published', test: false });
      expect(unwrap(await documented('getForm', 200, getForm(demo.id)))).toEqual({ ...demo, request_id: expect.any(String) });
    });

    it('when the same slug is used again, then unwrap throws FormFunnelError 409 slug_taken pointing at /slug', async () => {
      const error = await documentedProblem('createForm', 409, client.POST('/forms', { body: requestExample<FormCreate>('createForm') }));
      expect(error).toMatchObject({ status: 409, type: 'conflict_error', code: 'slug_taken' });
      expect(error.details?.errors).toEqual([expect.objectContaining({ location: 'body', pointer: '/slug', code: 'slug_taken' })]);
    });

    it('when five forms exist, then paging with limit=2 takes three pages and returns each form once, newest first', async () => {
      for (const name of ['Page one', 'Page two', 'Page three', 'Page four']) {
        pageForms.push(unwrap(await documented('createForm', 201, client.POST('/forms', { body: { name } }))));
      }
      const pages: FormSummary[][] = [];
      let startingAfter: string | undefined;
      for (;;) {
        const query = { limit: 2, ...(startingAfter && { starting_after: startingAfter }) };
        const page = unwrap(await documented('listForms', 200, client.GET('/forms', { params: { query } })));
        pages.push(page.data);
        if (!page.has_more) break;
        startingAfter = page.data.at(-1)!.id;
        expect(pages.length, 'pagination ends').toBeLessThan(10);
      }

      expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
      const listed = pages.flat();
      expect(new Set(listed.map((form) => form.id)).size).toBe(5);
      expect(listed.map((form) => form.id).sort()).toEqual([demo, ...pageForms].map((form) => form.id).sort());
      const created = listed.map((form) => form.created_at);
      expect(created).toEqual([...created].sort().reverse());
    });

    it('when a form is updated, then its version increments and both versions can be read', async () => {
      const updated = unwrap(
        await documented(
          'updateForm',
          200,
          client.PATCH('/forms/{id}', { params: { path: { id: demo.id } }, body: { name: 'Demo request (2027)' } }),
        ),
      );
      expect(updated).toMatchObject({ id: demo.id, name: 'Demo request (2027)', slug: demo.slug, version: 2 });
      expect(updated.updated_at >= demo.updated_at).toBe(true);

      const versions = unwrap(
        await documented('listFormVersions', 200, client.GET('/forms/{id}/versions', { params: { path: { id: demo.id } } })),
      );
      expect(versions.data.map((version) => [version.version, version.name])).toEqual([
        [2, 'Demo request (2027)'],
        [1, demo.name],
      ]);
      expect(versions.has_more).toBe(false);

      const first = unwrap(
        await documented(
          'getFormVersion',
          200,
          client.GET('/forms/{id}/versions/{version}', { params: { path: { id: demo.id, version: 1 } } }),
        ),
      );
      expect(first).toMatchObject({
        object: 'form_version',
        form_id: demo.id,
        version: 1,
        name: demo.name,
        slug: demo.slug,
        steps: demo.steps,
      });
    });

    it('when a version does not exist, then unwrap throws FormFunnelError 404 resource_not_found', async () => {
      const error = await documentedProblem(
        'getFormVersion',
        404,
        client.GET('/forms/{id}/versions/{version}', { params: { path: { id: demo.id, version: 99 } } }),
      );
      expect(error).toMatchObject({ status: 404, type: 'not_found', code: 'resource_not_found' });
    });

    it('when a form is offered to another workspace and accepted there, then it is gone here and visible there', async () => {
      const other = await target.otherWorkspace();
      const transfer = unwrap(
        await documented(
          'transferForm',
          201,
          client.POST('/forms/{id}/transfer', { params: { path: { id: demo.id } }, body: { workspace_id: other.workspace_id } }),
        ),
      );
      expect(transfer).toMatchObject({
        object: 'form_transfer',
        form_id: demo.id,
        from_workspace_id: target.workspaceId,
        to_workspace_id: other.workspace_id,
        status: 'pending',
      });
      const accepted = unwrap(
        await documented(
          'acceptTransfer',
          200,
          clientFor(other.live_admin_key).POST('/transfers/{id}/accept', { params: { path: { id: transfer.id } } }),
        ),
      );
      expect(accepted).toMatchObject({ id: transfer.id, status: 'accepted' });

      const here = await documentedProblem('getForm', 404, getForm(demo.id));
      expect(here.code).toBe('resource_not_found');
      const there = unwrap(await documented('getForm', 200, getForm(demo.id, clientFor(other.live_admin_key))));
      expect(there).toMatchObject({ id: demo.id, name: 'Demo request (2027)', version: 2 });
    });

    it('when forms are deleted, then each delete confirms and the forms are gone from the list', async () => {
      for (const form of pageForms) {
        const deleted = unwrap(await documented('deleteForm', 200, client.DELETE('/forms/{id}', { params: { path: { id: form.id } } })));
        expect(deleted).toEqual({ id: form.id, object: 'form', deleted: true, request_id: expect.any(String) });
        expect((await documentedProblem('getForm', 404, getForm(form.id))).code).toBe('resource_not_found');
      }
      const remaining = unwrap(await documented('listForms', 200, client.GET('/forms')));
      expect(remaining).toMatchObject({ data: [], has_more: false });
    });

    it('when a deleted form is deleted again, then unwrap throws FormFunnelError 404 with the request id', async () => {
      const error = await documentedProblem(
        'deleteForm',
        404,
        client.DELETE('/forms/{id}', { params: { path: { id: pageForms[0]!.id } } }),
      );
      expect(error).toMatchObject({ status: 404, code: 'resource_not_found', requestId: expect.stringMatching(/^req_/) });
      expect(error.message).toContain(pageForms[0]!.id);
    });
  });

  describe('a partner resumes a lead with the typed client', () => {
    it('when a partial submission with a context is resumed and completed, then each step is documented and typed, and a second completion is 409', async () => {
      const body = { ...requestExample<FormCreate>('createForm'), slug: 'resumed-leads' };
      const form = unwrap(await documented('createForm', 201, client.POST('/forms', { body })));
      const started = unwrap(
        await documented(
          'createSubmission',
          201,
          client.POST('/submissions', {
            body: {
              form_id: form.id,
              answers: { full_name: 'Tom Okafor', email: 'tom@brightdesk.example' },
              status: 'partial',
              context: { landing_url: 'https://www.acme.example/demo', utm: { source: 'newsletter' } },
            },
          }),
        ),
      );
      expectTypeOf(started.context.utm.source).toEqualTypeOf<string | null>();
      expect(started.context).toMatchObject({
        user_agent: null,
        landing_url: 'https://www.acme.example/demo',
        utm: { source: 'newsletter' },
      });

      const resume = () =>
        client.PATCH('/submissions/{id}', {
          params: { path: { id: started.id } },
          body: { answers: { company_size: '1_10', has_budget: false, gdpr: true }, status: 'completed' },
        });
      const done = unwrap(await documented('updateSubmission', 200, resume()));
      expectTypeOf(done).toMatchTypeOf<Schema<'Submission'>>();
      expect(done).toMatchObject({ id: started.id, status: 'completed', visited_steps: ['contact', 'company', 'finish'] });
      expect((await documentedProblem('updateSubmission', 409, resume())).code).toBe('submission_completed');

      const query = { form_id: form.id, utm_source: 'newsletter' };
      const listed = unwrap(await documented('listSubmissions', 200, client.GET('/submissions', { params: { query } })));
      expect(listed.data.map((submission) => submission.id)).toEqual([started.id]);
    });
  });

  describe('the OAuth token endpoint through the typed client', () => {
    it('when the document’s form-encoded request names an unregistered client, then unwrap throws FormFunnelError 401 invalid_client', async () => {
      // openapi-fetch URL-encodes the body because the Content-Type says so; the server parsing it proves it.
      const error = await documentedProblem(
        'createOAuthToken',
        401,
        client.POST('/oauth/token', {
          body: requestExample<Schema<'OAuthTokenRequest'>>('createOAuthToken', 'authorization_code'),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        }),
      );
      expect(error).toMatchObject({ status: 401, type: 'authentication_error', code: 'invalid_client' });
      expect(error.problem).toMatchObject({ error: 'invalid_client' });
    });
  });

  describe('finding and exporting leads through the typed client', () => {
    it('when leads are filtered, sorted and exported, then exportSubmissions yields what the typed list pages through', async () => {
      const form = unwrap(await client.POST('/forms', { body: requestExample<FormCreate>('createForm') }));
      const answers = requestExample<Schema<'SubmissionCreate'>>('createSubmission', 'completed').answers;
      for (let n = 0; n < 3; n++) unwrap(await client.POST('/submissions', { body: { form_id: form.id, answers, status: 'completed' } }));
      const query: SubmissionListQuery = { form_id: form.id, grade: ['A'], min_score: 0, sort: '-score', limit: 2 };
      const listed: string[] = [];
      for await (const lead of paginate(client, '/submissions', { params: { query } })) listed.push(lead.id);
      const { limit: _limit, ...filters } = query;
      const exported: string[] = [];
      for await (const lead of exportSubmissions(client, filters)) exported.push(lead.id);
      expect(listed).toHaveLength(3);
      expect(exported).toEqual(listed);
    });
  });
});
