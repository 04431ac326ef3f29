/**
 * `npm run stubs`: a generated project type-checks, passes its own `npm test` and starts; every operation
 * answers the 501 problem until implemented; the pipeline answers the contract's problems; `--examples` answers
 * the documented examples, validated on the way out; `--update` keeps what the implementer changed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStubs } from '../../src/cli/stubs.js';
import { bundleContract } from '../../src/stubs/contract-source.js';
import { generateStubs } from '../../src/stubs/generate.js';
import { type OpenApiDocument, readOperations } from '../../src/stubs/template/src/contract.js';
import { readExamples } from '../../src/stubs/template/src/examples.js';
import { portBecomes } from '../support/ports.js';
import {
  exampleRequest,
  execute,
  type RunningServer,
  repositoryRoot,
  type StubProject,
  startServer,
  stubProject,
  typeCheck,
} from './stub-project.js';

const key = 'svc_test_stubs0example0key';

/**
 * The getMe implementation of docs/implement-yourself.md, as a reader would paste it (fenced `ts excerpt`: it
 * compiles inside a stub project, here, not on its own as the docs' snippet check compiles blocks).
 */
function guideGetMe(): string {
  const guide = readFileSync(join(repositoryRoot, 'docs/implement-yourself.md'), 'utf8');
  const block = [...guide.matchAll(/```ts(?: excerpt)?\n([\s\S]*?)```/g)]
    .map((match) => match[1]!)
    .find((code) => code.includes('export const getMe'));
  if (!block) throw new Error('docs/implement-yourself.md no longer shows a getMe implementation');
  return block.trimEnd();
}
let document: OpenApiDocument;
beforeAll(async () => {
  document = await bundleContract();
});

async function call(server: RunningServer, request: ReturnType<typeof exampleRequest>) {
  const response = await fetch(`${server.baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const text = await response.text();
  const json = /json/.test(response.headers.get('content-type') ?? '') && !/ndjson/.test(response.headers.get('content-type') ?? '');
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: json ? (JSON.parse(text) as Record<string, unknown>) : undefined,
  };
}

describe('a generated stub project', () => {
  let project: StubProject;
  let server: RunningServer;
  beforeAll(async () => {
    project = await stubProject({ document });
    // getMe implemented as the guide shows, so that the guide's code is compiled and served like the implementer's.
    const accountFile = join(project.dir, 'src/handlers/account.ts');
    writeFileSync(accountFile, readFileSync(accountFile, 'utf8').replace(/export const getMe: .*\n/, `${guideGetMe()}\n`));
    server = await startServer(project.dir);
  });
  afterAll(async () => {
    await server?.stop();
    project?.remove();
  });

  it('when its own npm test runs, then it type-checks and its example test passes', async () => {
    const { stdout } = await execute('npm', ['test', '--silent'], { cwd: project.dir });
    expect(stdout).toMatch(/# pass 1\b/);
    expect(stdout).toMatch(/# fail 0\b/);
  });

  it('when the project regenerates its own types (npm run generate), then they equal the generated ones', async () => {
    const generated = readFileSync(join(project.dir, 'src/generated/openapi.d.ts'), 'utf8');
    await execute('npm', ['run', '--silent', 'generate'], { cwd: project.dir });
    expect(readFileSync(join(project.dir, 'src/generated/openapi.d.ts'), 'utf8')).toBe(generated);
  });

  it('has one handler file per tag and every operation in the satisfies map', () => {
    const index = readFileSync(join(project.dir, 'src/handlers/index.ts'), 'utf8');
    const operations = readOperations(document);
    for (const operation of operations) expect(index).toContain(`  ${operation.operationId},\n`);
    expect(index).toContain('} satisfies Handlers;');
    const account = readFileSync(join(project.dir, 'src/handlers/account.ts'), 'utf8');
    expect(account).toContain("export const getUsage: Handler<'getUsage'> = async () => notImplemented('getUsage');");
  });

  it('when a valid request reaches any operation, then 501 not_implemented naming it, with the request id', async () => {
    const operations = readOperations(document);
    expect(operations.length).toBeGreaterThan(40);
    for (const operation of operations.filter(({ operationId }) => operationId !== 'getMe')) {
      const answer = await call(server, exampleRequest(document, operation, key));
      const requestId = answer.headers.get('x-request-id');
      expect({ operation: operation.operationId, status: answer.status }).toEqual({ operation: operation.operationId, status: 501 });
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(requestId).toMatch(/^req_[0-9A-Za-z]{24}$/);
      expect(answer.body).toEqual({
        type: 'server_error',
        code: 'not_implemented',
        status: 501,
        title: 'Server error',
        message: `The operation ${operation.operationId} is not implemented yet.`,
        request_id: requestId,
      });
    }
  });

  it('when getMe is implemented as docs/implement-yourself.md shows, then it answers 200 and passes response validation', async () => {
    const answer = await call(server, { method: 'GET', path: '/me', headers: { Authorization: `Bearer ${key}` } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      object: 'me',
      environment: 'test',
      scope: 'admin',
      request_id: answer.headers.get('x-request-id'),
    });
    expect(answer.body?.id).toMatch(/^key_[0-9A-Za-z]{24}$/);
  });

  it('when the npm start process alone gets SIGTERM, then its server stops too and frees the port', async () => {
    const started = await startServer(project.dir, { npm: true });
    const port = Number(new URL(started.baseUrl).port);
    await started.stop();
    const closed = await portBecomes(port, false, 5000);
    expect(closed).toBe(true);
  });

  it('when started without HTTP=1, then it serves HTTPS with a self-signed certificate it wrote to data/', async () => {
    const secure = await startServer(project.dir, { tls: true });
    try {
      expect(secure.baseUrl).toMatch(/^https:/);
      const ca = readFileSync(join(project.dir, 'data/tls-cert.pem'), 'utf8');
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = https.get(`${secure.baseUrl}/me`, { ca, headers: { Authorization: `Bearer ${key}` } }, (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        });
        request.on('error', reject);
      });
      expect(status).toBe(200);
      expect(JSON.parse(body)).toMatchObject({ object: 'me' });
    } finally {
      await secure.stop();
    }
  });

  it('when the body is not JSON, then the 400 invalid_json problem', async () => {
    const answer = await call(server, {
      method: 'POST',
      path: '/forms',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: '{"name": ',
    });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ type: 'validation_error', code: 'invalid_json', request_id: answer.headers.get('x-request-id') });
  });

  it('when the body breaks the schema, then 400 invalid_parameters listing every issue', async () => {
    const answer = await call(server, {
      method: 'POST',
      path: '/forms',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: '', colour: 'red' }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ type: 'validation_error', code: 'invalid_parameters' });
    const issues = (answer.body!.details as { errors: Array<{ location: string; pointer: string; code: string }> }).errors;
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ location: 'body', pointer: '/name', code: 'min_length' }),
        expect.objectContaining({ location: 'body', pointer: '/colour', code: 'additional_property' }),
      ]),
    );
  });

  it.each([
    ['missing', undefined],
    ['not exactly "Bearer <key>"', `bearer ${key}`],
    ['sent after two spaces', `Bearer  ${key}`],
    ['unknown to lookUpKey', 'Bearer not_a_key'],
  ])('when the key is %s, then 401 invalid_api_key', async (_case, authorization) => {
    const answer = await call(server, { method: 'GET', path: '/me', headers: authorization ? { Authorization: authorization } : {} });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({
      type: 'authentication_error',
      code: 'invalid_api_key',
      request_id: answer.headers.get('x-request-id'),
    });
  });

  it('when the path or method is unknown, then 404 route_not_found or 405 with Allow', async () => {
    const missing = await call(server, { method: 'GET', path: '/widgets', headers: { Authorization: `Bearer ${key}` } });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'route_not_found' });
    const wrongMethod = await call(server, {
      method: 'PUT',
      path: '/forms/form_2kTz9QwErTy7UiOp4AsDfGhJ',
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, DELETE, PATCH');
  });
});

describe('a stub project generated with --examples', () => {
  let project: StubProject;
  let server: RunningServer;
  beforeAll(async () => {
    project = await stubProject({ document, examples: true });
    // One handler answers a body its operation does not declare: the response validator must stop it.
    const forms = join(project.dir, 'src/handlers/folders.ts');
    const broken = "export const getFolder: Handler<'getFolder'> = async () => ({ status: 200, body: { object: 'folder' } as never });";
    writeFileSync(forms, readFileSync(forms, 'utf8').replace(/export const getFolder: .*\n/, `${broken}\n`));
    server = await startServer(project.dir);
  });
  afterAll(async () => {
    await server?.stop();
    project?.remove();
  });

  it('when any operation is called, then it answers its documented example, which passed response validation', async () => {
    const examples = readExamples(document);
    expect(project.report.withoutExample).toEqual([]);
    // The resource headers a client acts on are answered too.
    expect(examples.get('createForm')?.headers?.Location).toMatch(/^\/v1\/forms\/form_/);
    expect(examples.get('getForm')?.headers?.ETag).toMatch(/^"/);
    for (const operation of readOperations(document)) {
      if (operation.operationId === 'getFolder') continue;
      const example = examples.get(operation.operationId)!;
      const answer = await call(server, exampleRequest(document, operation, key));
      expect({ operation: operation.operationId, status: answer.status }).toEqual({
        operation: operation.operationId,
        status: example.status,
      });
      if (example.body !== undefined)
        expect(answer.body).toEqual({ ...(example.body as object), request_id: answer.headers.get('x-request-id') });
      if (example.text !== undefined) expect(answer.text).toBe(example.text);
      for (const [name, value] of Object.entries(example.headers ?? {})) expect(answer.headers.get(name)).toBe(value);
    }
  });

  it('when a handler answers a body the contract does not describe, then the client gets 500 internal_error', async () => {
    const answer = await call(
      server,
      exampleRequest(document, readOperations(document).find((operation) => operation.operationId === 'getFolder')!, key),
    );
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ type: 'server_error', code: 'internal_error' });
  });
});

describe('npm run stubs -- --update', () => {
  let project: StubProject;
  let fake: StubProject | undefined;
  afterAll(() => {
    project?.remove();
    fake?.remove();
  });

  it('when a project made with --examples is regenerated, then its untouched handlers still answer examples', async () => {
    fake = await stubProject({ document, examples: true });
    const report = await generateStubs({ out: fake.dir, update: true, document });
    expect(report.keptHandlers).toEqual([]);
    expect(readFileSync(join(fake.dir, 'src/handlers/account.ts'), 'utf8')).toContain(
      "export const getMe: Handler<'getMe'> = async () => documentedExample('getMe');",
    );
    await generateStubs({ out: fake.dir, update: true, examples: false, document });
    expect(readFileSync(join(fake.dir, 'src/handlers/account.ts'), 'utf8')).toContain(
      "export const getMe: Handler<'getMe'> = async () => notImplemented('getMe');",
    );
  });

  it('adds new operations, keeps an edited handler, lists the operations that disappeared', async () => {
    // The project starts from an older contract: without getUsage, and with an operation since removed.
    const older = structuredClone(document);
    const { get: _usage, ...usageItem } = older.paths['/usage']!;
    older.paths['/usage'] = usageItem;
    older.paths['/me_legacy'] = { get: { ...(older.paths['/me']!.get as object), operationId: 'getMeLegacy' } };
    project = await stubProject({ document: older });
    const accountFile = join(project.dir, 'src/handlers/account.ts');
    const edited =
      "export const getMe: Handler<'getMe'> = async ({ key }) => {\n  if (!key) return notImplemented('getMe');\n  return notImplemented('getMe');\n};";
    writeFileSync(accountFile, readFileSync(accountFile, 'utf8').replace(/export const getMe: .*\n/, `${edited}\n`));
    const readme = join(project.dir, 'README.md');
    writeFileSync(readme, `${readFileSync(readme, 'utf8')}\nOur notes.\n`);

    const { stdout } = await execute(process.execPath, ['--import', 'tsx', 'src/cli/stubs.ts', '--out', project.dir, '--update'], {
      cwd: repositoryRoot,
    });
    expect(stdout).toContain('Handlers added for new operations: getUsage.');
    expect(stdout).toContain('Handlers you changed, kept as they are: getMe.');
    expect(stdout).toContain('Files you changed, kept as they are: README.md.');
    expect(stdout).toContain('The contract no longer has getMeLegacy: delete its handler from src/handlers/account.ts.');

    const account = readFileSync(accountFile, 'utf8');
    expect(account).toContain(edited);
    expect(account).toContain("export const getUsage: Handler<'getUsage'> = async () => notImplemented('getUsage');");
    expect(readFileSync(readme, 'utf8')).toContain('Our notes.');
    expect(readFileSync(join(project.dir, 'src/handlers/index.ts'), 'utf8')).not.toContain('getMeLegacy');

    // Until then the compiler names it, as it names a handler answering a status its operation does not declare.
    const usageAnswer = "export const getUsage: Handler<'getUsage'> = async () => notImplemented('getUsage');";
    writeFileSync(accountFile, account.replace(usageAnswer, "export const getUsage: Handler<'getUsage'> = async () => ({ status: 204 });"));
    const failed = await typeCheck(project.dir).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(failed).toMatch(/account\.ts\(\d+,\d+\): error TS\d+: .*getMeLegacy/);
    expect(failed).toMatch(/account\.ts\(\d+,\d+\): error TS2322: .*status: 204/);

    // Once the implementer deletes the handler the update named, the project type-checks against the new contract.
    writeFileSync(accountFile, account.replace(/\n\/\*\*[^\n]*\*\/\nexport const getMeLegacy: .*\n/, '\n'));
    await typeCheck(project.dir);

    // A second update changes nothing the implementer wrote, and finds nothing new (the command in this process, on
    // the contract this file bundled, the same the first update bundled for itself as a process).
    const again = await runStubs(['--out', project.dir, '--update'], { document });
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('Handlers added');
    expect(again.stdout).toContain('Handlers you changed, kept as they are: getMe.');
    expect(readFileSync(accountFile, 'utf8')).toContain(edited);
  });
});
