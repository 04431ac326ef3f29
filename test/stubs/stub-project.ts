/**
 * Test helpers for generated stub projects: a project in a temporary directory, its server started as a process,
 * and a request for each operation that the contract's validation accepts (built from the documented examples).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateStubs, type StubOptions, type StubReport } from '../../src/stubs/generate.js';
import { type OpenApiDocument, type Operation, resolve } from '../../src/stubs/template/src/contract.js';
import { pngImage } from '../support/images.js';

export const execute = promisify(execFile);
export const repositoryRoot = new URL('../../', import.meta.url).pathname;

export interface StubProject {
  dir: string;
  report: StubReport;
  remove(): void;
}

/**
 * Generates a project and links this repository's node_modules into it instead of running `npm install`: the
 * same pinned packages, offline, in no time (an install takes tens of seconds of a shared CPU). The one difference,
 * this repository's speed patch of express-openapi-validator (route matchers cached), changes no answer.
 */
export async function stubProject(options: Omit<StubOptions, 'out'> = {}): Promise<StubProject> {
  const dir = mkdtempSync(join(tmpdir(), 'form-funnel-stubs-'));
  const report = await generateStubs({ ...options, out: dir });
  symlinkSync(join(repositoryRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { dir, report, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export const typeCheck = (dir: string) =>
  execute(process.execPath, [join(repositoryRoot, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', dir]);

export interface RunningServer {
  baseUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The project's server on a free port, plain HTTP unless `tls` is set: its start command run directly, or with
 * `npm` the `npm start` process itself, which `stop` then signals as a supervisor would (that process alone).
 */
export function startServer(dir: string, { tls = false, npm = false } = {}): Promise<RunningServer> {
  const [command, args] = npm ? ['npm', ['start']] : [process.execPath, ['--import', 'tsx', 'src/server.ts']];
  const child = spawn(command, args, {
    cwd: dir,
    env: { ...process.env, HTTP: tls ? '' : '1', PORT: '0', NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolvePromise, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const baseUrl = /Listening on (https?:\/\/127\.0\.0\.1:\d+\/v1)/.exec(output)?.[1];
      if (!baseUrl) return;
      child.stdout.off('data', onData);
      resolvePromise({
        baseUrl,
        process: child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`the stub server exited (${code}) before listening:\n${output}`)));
  });
}

export interface ExampleRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** JSON or form text, or a file's bytes. */
  body?: string | Uint8Array;
}

const firstExample = (document: OpenApiDocument, node: Record<string, unknown>): unknown => {
  if (node.example !== undefined) return node.example;
  const named = Object.values((node.examples as Record<string, unknown> | undefined) ?? {})[0];
  if (named !== undefined) return resolve(document, named).value;
  const schema = resolve(document, node.schema);
  return (schema.examples as unknown[] | undefined)?.[0] ?? schema.example;
};

/** A publishable key of the documented shape, which a fresh stub accepts on the public operations. */
export const publishableKey = `svc_pub_test_${'p'.repeat(24)}`;

/**
 * A request the contract accepts: documented examples for path parameters, required query parameters and the body,
 * with `key`, or on the public operations (which take a publishable key only) `publishableKey`.
 */
export function exampleRequest(document: OpenApiDocument, operation: Operation, key: string): ExampleRequest {
  let path = operation.path;
  const query = new URLSearchParams();
  const publicOperation = operation.security.some((requirement) => 'publishableKey' in requirement);
  const headers: Record<string, string> = { Authorization: `Bearer ${publicOperation ? publishableKey : key}` };
  // Parameters of the path item apply to each of its operations.
  const shared = (document.paths[operation.path]?.parameters as unknown[] | undefined) ?? [];
  const own = (operation as unknown as { parameters?: unknown[] }).parameters ?? [];
  const parameters = [...shared, ...own].map((parameter) => resolve(document, parameter));
  for (const parameter of parameters) {
    const value = firstExample(document, parameter);
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
    else if (parameter.in === 'query' && parameter.required) query.set(String(parameter.name), String(value));
    else if (parameter.in === 'header' && parameter.required) headers[String(parameter.name)] = String(value);
  }
  const search = query.size > 0 ? `?${query}` : '';
  const [mediaType, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
  if (!mediaType || !media) return { method: operation.method, path: `${path}${search}`, headers };
  headers['Content-Type'] = mediaType;
  // A file (a logo): a real image of the first type the operation takes, as an upload would send it.
  if (mediaType === 'image/png') return { method: operation.method, path: `${path}${search}`, headers, body: pngImage(64, 64) };
  const value = firstExample(document, media as Record<string, unknown>);
  const body =
    mediaType === 'application/x-www-form-urlencoded'
      ? new URLSearchParams(value as Record<string, string>).toString()
      : JSON.stringify(value ?? {});
  return { method: operation.method, path: `${path}${search}`, headers, body };
}
