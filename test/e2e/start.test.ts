/**
 * `npm start` as the README gives it, on a copy of the project made for this file (its own build/ and dist/, so
 * the builds it triggers touch nothing the other tests read): the first start compiles the server and builds the
 * docs, a warm start builds nothing, and a change rebuilds only what it affects. SIGTERM or SIGINT to the npm
 * process, and Ctrl-C (SIGINT to the whole process group), stop every process the start made. The banner's admin
 * command, run as printed, makes a key the server accepts.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accepts } from '../support/ports.js';
import { createTestDatabase } from '../support/postgres.js';
import { fetchTrusting } from './support/fetch-trusting.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
/** What `npm start` reads; build/ and dist/ are left out, as in a fresh clone. */
const projectFiles = ['src', 'openapi', 'generated', 'docs/images', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'redocly.yaml'];

let project: string;
let dataDir: string;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'form-funnel-start-'));
  for (const file of projectFiles) cpSync(join(root, file), join(project, file), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'));
  dataDir = mkdtempSync(join(tmpdir(), 'form-funnel-start-data-'));
});

afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

interface Started {
  npm: ChildProcess;
  port: number;
  output: () => string;
  /** How npm ended: `exit 0`, or `signal SIGTERM` when a signal ended it. */
  exited: Promise<string>;
}

const running = new Set<ChildProcess>();

/**
 * Processes of the group `npm` led (itself, the server, its workers) still working in the copy. The group alone
 * does not tell: once npm and its group are gone, its pid may be reused by another test's process group.
 */
const groupLeftInProject = (npm: ChildProcess) =>
  processesInProject().filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === npm.pid;
    } catch {
      return false; // gone meanwhile
    }
  });

/**
 * Processes working in the copy: npm, the server, its workers and any builder, whatever process group it is in
 * (the builders run in groups of their own). Linux's /proc, as on every machine the suite runs on.
 */
function processesInProject(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === project;
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number);
}

const commandLineOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
};

/** Resolves with the processes still working in the copy once there are none, or after `withinMs`. */
async function processesLeftInProject(withinMs = 5000): Promise<number[]> {
  for (const since = Date.now(); ; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const left = processesInProject();
    if (left.length === 0 || Date.now() - since > withinMs) return left;
  }
}

afterEach(() => {
  // Whatever a failed test left running goes, builders and workers included. A group is signalled by its leader's
  // pid only while that npm still runs: once it has exited, the pid may already lead another test's process group
  // (pids wrap at 32768 here), and killing that took down the mock of another worker's test. What an exited npm left
  // behind is found in /proc below.
  for (const npm of running) {
    if (npm.exitCode !== null || npm.signalCode !== null) continue;
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      // It ended meanwhile.
    }
  }
  for (const pid of processesInProject()) process.kill(pid, 'SIGKILL');
  running.clear();
});

/** `npm start` in a process group of its own, as a terminal would make it. */
function spawnStart(env: Record<string, string> = {}) {
  const npm = spawn('npm', ['start'], {
    cwd: project,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(npm);
  let output = '';
  npm.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  npm.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<string>((resolve) =>
    npm.once('exit', (code, signal) => resolve(code === null ? `signal ${signal}` : `exit ${code}`)),
  );
  return { npm, output: () => output, exited };
}

/** `npm start --silent [args]` in the copy, to its end: exit code, stdout and stderr. */
async function npmStart(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npm', ['start', '--silent', ...args], {
      cwd: project,
      env: { ...process.env, DATA_DIR: dataDir },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Waits until the output shows the pattern; fails if npm exits first or it takes too long. */
async function outputMatching(started: ReturnType<typeof spawnStart>, pattern: RegExp): Promise<RegExpExecArray> {
  for (const since = Date.now(); ; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const match = pattern.exec(started.output());
    if (match) return match;
    if (started.npm.exitCode !== null || Date.now() - since > 150_000)
      throw new Error(`npm start never printed ${pattern}:\n${started.output()}`);
  }
}

/** `npm start` up to its banner. */
async function start(env: Record<string, string> = {}): Promise<Started> {
  const started = spawnStart(env);
  const [, port] = await outputMatching(started, /Form-Funnel API listening on https:\/\/localhost:(\d+)\/v1/);
  return { ...started, port: Number(port) };
}

/** Sends the signal (to the npm process, or to its group as Ctrl-C does) and expects everything gone within 5 s. */
async function expectStopsOn(server: Started, signal: NodeJS.Signals, to: 'npm' | 'group'): Promise<void> {
  expect(await accepts(server.port)).toBe(true);
  process.kill(to === 'npm' ? server.npm.pid! : -server.npm.pid!, signal);
  const ended = await Promise.race([server.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 5000))]);
  // The output says why when it did not end cleanly (a crash's report, the signal the server died of).
  expect(ended, server.output()).toBe('exit 0');
  expect(server.output()).toContain('"msg":"stopped"');
  expect(await accepts(server.port)).toBe(false);
  expect(groupLeftInProject(server.npm)).toEqual([]);
  expect(await processesLeftInProject()).toEqual([]);
}

/** The admin command the banner prints, run as printed (its variables and nothing else of the server's). */
async function runBannerAdminCommand(output: string, password?: string): Promise<{ live_admin_key: string; sign_in_url: string }> {
  const line = output.split('\n').find((entry) => entry.includes('npm run admin -- bootstrap'));
  const [, assignments = ''] = /^\s*(.*?)npm run admin -- bootstrap/.exec(line ?? '') ?? [];
  const env: Record<string, string> = { PATH: process.env.PATH!, HOME: process.env.HOME! };
  for (const [, name, quoted, plain] of assignments.matchAll(/(\w+)=(?:'([^']*)'|(\S+))/g)) {
    env[name!] = (quoted ?? plain!).replace('<password>', password ?? '<password>');
  }
  const { stdout } = await run('npm', ['run', '-s', 'admin', '--', 'bootstrap', '--workspace', 'Acme', '--json'], { cwd: project, env });
  return JSON.parse(stdout) as { live_admin_key: string; sign_in_url: string };
}

async function meStatus(port: number, key: string): Promise<number> {
  const transport = fetchTrusting(readFileSync(join(dataDir, 'tls-cert.pem'), 'utf8'));
  try {
    const response = await transport.fetch(new Request(`https://localhost:${port}/v1/me`, { headers: { Authorization: `Bearer ${key}` } }));
    return response.status;
  } finally {
    transport.close();
  }
}

/** The form of the README's walkthrough (its `curl … /forms` body), as a newcomer would create it. */
function readmeForm(): Record<string, unknown> {
  const body = /^FORM=\$\(curl -sk "\$BASE\/forms" [^\n]*-d '(\{[\s\S]*?\n\})' \| json r\.id\)$/m.exec(
    readFileSync(join(root, 'README.md'), 'utf8'),
  )?.[1];
  if (body === undefined) throw new Error("The README no longer creates its form with curl … /forms -d '{…}'");
  return JSON.parse(body) as Record<string, unknown>;
}

/**
 * The "done when" for hosted forms: the README's form created with hosting on, and its `hosting.url` opened
 * as a browser would, answers its page, whose script is served too.
 */
async function expectHostedPage(port: number, key: string): Promise<void> {
  const transport = fetchTrusting(readFileSync(join(dataDir, 'tls-cert.pem'), 'utf8'));
  try {
    const created = await transport.fetch(
      new Request(`https://localhost:${port}/v1/forms`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...readmeForm(), hosting: { enabled: true } }),
      }),
    );
    expect(created.status).toBe(201);
    const form = (await created.json()) as { id: string; hosting: { url: string } };
    expect(form.hosting.url).toBe(`https://localhost:${port}/f/${form.id}`);
    const page = await transport.fetch(new Request(form.hosting.url));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<title>Demo request</title>');
    const script = /<script src="(\/f\/assets\/[^"]+\.js)" defer>/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await transport.fetch(new Request(new URL(script!, form.hosting.url)));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
  } finally {
    transport.close();
  }
}

/**
 * With no SMTP_URL, `npm start` alone works end to end for people: the bootstrap's sign-in link opens its page on this
 * server, and an invitation is written to DATA_DIR/mail as a message whose link opens the invitation's page.
 */
async function expectPeopleGetIn(port: number, key: string, signInUrl: string): Promise<void> {
  expect(signInUrl).toMatch(new RegExp(`^https://localhost:${port}/sign-in/link\\?token=`));
  const transport = fetchTrusting(readFileSync(join(dataDir, 'tls-cert.pem'), 'utf8'));
  try {
    const signIn = await transport.fetch(new Request(signInUrl));
    expect(signIn.status).toBe(200);
    expect(await signIn.text()).toContain('Continue as owner@example.com');
    const invited = await transport.fetch(
      new Request(`https://localhost:${port}/v1/team/invites`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'colleague@acme.test', role: 'viewer' }),
      }),
    );
    expect(invited.status).toBe(201);
    const mailDir = join(dataDir, 'mail');
    await expect
      .poll(() => readdirSync(mailDir, { withFileTypes: true }).filter((entry) => entry.name.endsWith('.eml')).length, { timeout: 10_000 })
      .toBe(1);
    const [file] = readdirSync(mailDir).filter((name) => name.endsWith('.eml'));
    const message = readFileSync(join(mailDir, file!), 'utf8')
      .replace(/=\r?\n/g, '')
      .replace(/=3D/g, '=');
    const link = /https:\/\/localhost:\d+\/invites\/accept\?token=[A-Za-z0-9_-]{43}/.exec(message)?.[0];
    expect(link).toBeDefined();
    const invitation = await transport.fetch(new Request(link!));
    expect(invitation.status).toBe(200);
    expect(await invitation.text()).toContain('Join Acme as a viewer');
  } finally {
    transport.close();
  }
}

describe('npm start', () => {
  it('when started on a fresh copy, then it compiles and builds the docs quietly, listens, and stops on SIGTERM to npm', async () => {
    const server = await start();
    expect(server.output()).toContain('Compiling the server');
    expect(server.output()).toContain('building the docs page');
    expect(server.output()).toContain(`reference docs  https://localhost:${server.port}/docs`);
    expect(server.output()).toContain(`dashboard       https://localhost:${server.port}/dashboard`);
    // The builders' own output (the Redocly CLI's banners among it) is shown only when a build fails.
    expect(server.output()).not.toMatch(/deprecat|bundling openapi/i);
    await expectStopsOn(server, 'SIGTERM', 'npm');
  }, 180_000);

  it('when nothing changed, then it builds nothing, prints no deprecation banner, its admin command makes a key the server accepts, and the README’s form hosted has a working page', async () => {
    const server = await start();
    expect(server.output()).not.toContain('Compiling the server');
    expect(server.output()).not.toContain('building the docs page');
    expect(server.output()).not.toMatch(/deprecat/i);
    expect(server.output()).toContain(`DATA_DIR=${dataDir} PORT=${server.port} npm run admin -- bootstrap`);
    const { live_admin_key, sign_in_url } = await runBannerAdminCommand(server.output());
    expect(await meStatus(server.port, live_admin_key)).toBe(200);
    await expectHostedPage(server.port, live_admin_key);
    await expectPeopleGetIn(server.port, live_admin_key, sign_in_url);
    await expectStopsOn(server, 'SIGINT', 'npm');
  });

  it('when a source file is saved unchanged and the document is edited, then it compiles, rebuilds the docs, and stops on Ctrl-C', async () => {
    const now = new Date();
    utimesSync(join(project, 'src/ids.ts'), now, now);
    appendFileSync(join(project, 'openapi/openapi.yaml'), '# edited\n');
    const server = await start();
    expect(server.output()).toContain('Compiling the server');
    expect(server.output()).toContain('building the docs page');
    await expectStopsOn(server, 'SIGINT', 'group');
  }, 120_000);

  it('when the document is only touched, then the docs are not rebuilt', async () => {
    const now = new Date();
    utimesSync(join(project, 'openapi/openapi.yaml'), now, now);
    const server = await start();
    expect(server.output()).not.toContain('building the docs page');
    await expectStopsOn(server, 'SIGTERM', 'npm');
  });

  it('when two workers run on PostgreSQL, then the banner names DATABASE_URL without its password, the command works, the README’s form hosted has a working page, and SIGTERM stops every worker', async () => {
    const database = await createTestDatabase();
    try {
      const url = new URL(database.url);
      url.password = 'sesame';
      const server = await start({ DATABASE_URL: url.href, WORKERS: '2' });
      url.password = '';
      expect(server.output()).not.toContain('sesame');
      expect(server.output()).toContain(`DATABASE_URL='postgres://${url.username}:<password>@${url.host}${url.pathname}'`);
      expect(server.output()).toContain('(2 worker processes)');
      const { live_admin_key } = await runBannerAdminCommand(server.output(), 'sesame');
      expect(await meStatus(server.port, live_admin_key)).toBe(200);
      await expectHostedPage(server.port, live_admin_key);
      await expectStopsOn(server, 'SIGTERM', 'npm');
    } finally {
      await database.drop();
    }
  }, 120_000);

  it('when `npm start -- --help` is run with the document edited, then the configuration is listed without building the docs', async () => {
    appendFileSync(join(project, 'openapi/openapi.yaml'), '# edited before --help\n');
    const docs = join(project, 'dist/docs/index.html');
    const builtAt = statSync(docs).mtimeMs;
    const outcome = await npmStart(['--', '--help']);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/^Form-Funnel reference server\n/);
    expect(outcome.stdout).toContain('PORT');
    expect(outcome.stdout).not.toMatch(/bundl|redocly/i);
    expect(outcome.stderr).not.toContain('building the docs page');
    expect(statSync(docs).mtimeMs).toBe(builtAt);
  });

  it('when SIGTERM reaches npm while the docs are being built, then the builders stop too and nothing is started', async () => {
    appendFileSync(join(project, 'openapi/openapi.yaml'), '# edited again\n');
    const started = spawnStart();
    await outputMatching(started, /building the docs page/);
    // Deep in the build: the Redocly CLI runs under npm run docs' npm and shell.
    for (const since = Date.now(); !processesInProject().some((pid) => commandLineOf(pid).includes('redocly')); ) {
      if (Date.now() - since > 30_000) throw new Error(`the Redocly CLI never ran:\n${started.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    process.kill(started.npm.pid!, 'SIGTERM');
    // Counted from the signal, not from npm's exit: a builder left behind (the signal passed to npm alone, whose
    // shell dies of it) would go on with its step for seconds, and hold npm's output open meanwhile.
    expect(await processesLeftInProject(1500)).toEqual([]);
    // npm ends as its script did: by the signal, with no exit code.
    expect(await started.exited).toBe('signal SIGTERM');
    expect(groupLeftInProject(started.npm)).toEqual([]);
    expect(started.output()).not.toContain('listening on');
  }, 60_000);
});
