/**
 * `npm run bench:compare -- <git ref>`: this checkout's full stack against the one at another commit, for telling
 * a change of a few percent from the noise of a shared machine. Not a test (nothing passes or fails); it prints a
 * table and writes dist/bench-compare.json.
 *
 * Both servers run at once, each in its own process (compare-server.ts), built as the throughput bench builds the
 * full stack. autocannon sends short bursts to one then the other, alternating which goes first, and each burst's
 * figure is the server's CPU time per request. A change in machine load hits the two bursts of a round alike, so
 * the ratio of each round's pair is the figure to read: its median, and its lowest and highest.
 *
 * The other commit is checked out into a temporary git worktree that shares this checkout's node_modules (so its
 * dependencies must be the same), and removed at the end.
 *
 * COMPARE_SCENARIO: `post` (POST /v1/submissions, the default), `form` (GET /v1/forms/{id}) or `list`
 * (GET /v1/submissions?limit=100);
 * COMPARE_ROUNDS (default 12) rounds of COMPARE_SECONDS (default 3) seconds per burst.
 */
import { execFile, execFileSync, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { median } from './median.js';

const ref = process.argv[2];
if (!ref) {
  process.stderr.write('Usage: npm run bench:compare -- <git ref to compare this checkout with>\n');
  process.exit(2);
}
const root = fileURLToPath(new URL('../../', import.meta.url));
const scenario = process.env.COMPARE_SCENARIO ?? 'post';
const targets = {
  post: 'POST /v1/submissions',
  form: 'GET /v1/forms/{id}',
  list: 'GET /v1/submissions?limit=100',
} as const;
if (!Object.hasOwn(targets, scenario)) throw new Error(`COMPARE_SCENARIO is one of ${Object.keys(targets).join(', ')}`);
const rounds = Number(process.env.COMPARE_ROUNDS ?? 12);
const seconds = Number(process.env.COMPARE_SECONDS ?? 3);
const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (value: number, decimals = 3) => Math.round(value * 10 ** decimals) / 10 ** decimals;

const other = join(mkdtempSync(join(tmpdir(), 'form-funnel-compare-')), 'checkout');
execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', other, ref], { stdio: 'ignore' });
symlinkSync(join(root, 'node_modules'), join(other, 'node_modules'));

interface Side {
  name: string;
  child: ReturnType<typeof fork>;
  url: string;
  authorization: string;
  formId: string;
  submission: string;
  cpuUs: number[];
  requestsPerSecond: number[];
}
const reply = (child: ReturnType<typeof fork>) =>
  new Promise<Record<string, unknown>>((resolve, reject) => {
    const onMessage = (message: unknown) => {
      child.off('exit', onExit);
      resolve(message as Record<string, unknown>);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`a compared server exited (${code}) before answering`));
    };
    child.once('message', onMessage);
    child.once('exit', onExit);
  });
async function start(name: string, checkout: string): Promise<Side> {
  const child = fork(join(root, 'test/bench/compare-server.ts'), [checkout], { execArgv: ['--import', 'tsx'], cwd: checkout });
  const ready = (await reply(child)) as unknown as Pick<Side, 'url' | 'authorization' | 'formId' | 'submission'>;
  return { name, child, ...ready, cpuUs: [], requestsPerSecond: [] };
}
const cpuOf = async (side: Side) => {
  const answer = reply(side.child);
  side.child.send('cpu');
  return (await answer).cpu as number;
};

const run = promisify(execFile);
async function burst(side: Side): Promise<{ cpuUs: number; requestsPerSecond: number }> {
  const target =
    scenario === 'post'
      ? ['-m', 'POST', '-H', 'content-type=application/json', '-b', side.submission, `${side.url}/v1/submissions`]
      : scenario === 'list'
        ? [`${side.url}/v1/submissions?limit=100`]
        : [`${side.url}/v1/forms/${side.formId}`];
  const before = await cpuOf(side);
  const { stdout } = await run(
    join(root, 'node_modules/.bin/autocannon'),
    ['-c', '16', '-d', String(seconds), '-j', '-H', `authorization=${side.authorization}`, ...target],
    { env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0' }, maxBuffer: 16 * 1024 * 1024 },
  );
  const cpu = (await cpuOf(side)) - before;
  const result = JSON.parse(stdout) as { requests: { total: number; average: number }; non2xx: number; errors: number };
  if (result.non2xx + result.errors > 0) throw new Error(`${side.name}: ${result.non2xx + result.errors} requests failed`);
  return { cpuUs: cpu / Math.max(1, result.requests.total), requestsPerSecond: result.requests.average };
}

const sides: Side[] = [];
try {
  sides.push(await start(ref, other), await start('this checkout', root));
  const loadAtStart = loadavg();
  log(`Comparing ${ref} with this checkout: ${targets[scenario as keyof typeof targets]}, ${rounds} rounds of ${seconds} s bursts`);
  // One unmeasured round each, so both have compiled and warmed what the scenario runs.
  for (const side of sides) await burst(side);
  const ratios: number[] = [];
  for (let index = 0; index < rounds; index++) {
    const order = index % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const measured = await burst(side);
      side.cpuUs.push(measured.cpuUs);
      side.requestsPerSecond.push(measured.requestsPerSecond);
    }
    ratios.push(sides[1]!.cpuUs[index]! / sides[0]!.cpuUs[index]!);
  }
  for (const side of sides) {
    log(
      `  ${side.name}: median ${Math.round(median(side.cpuUs))} us of CPU per request, ${Math.round(median(side.requestsPerSecond))} req/s`,
    );
  }
  log(
    `  CPU per request, this checkout against ${ref}: median ${round(median(ratios))}x (rounds ` +
      `${round(Math.min(...ratios))}-${round(Math.max(...ratios))}x)`,
  );
  log(
    `Load average at start ${loadAtStart.map((load) => round(load, 2)).join(', ')}, at end ${loadavg()
      .map((load) => round(load, 2))
      .join(', ')}`,
  );
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(
    join(root, 'dist/bench-compare.json'),
    `${JSON.stringify({ ref, scenario, rounds, seconds, ratios, sides: sides.map(({ name, cpuUs, requestsPerSecond }) => ({ name, cpuUs, requestsPerSecond })) }, null, 2)}\n`,
  );
  log('Wrote dist/bench-compare.json');
} finally {
  const running = sides.filter((side) => side.child.exitCode === null && side.child.connected);
  const exited = running.map((side) => new Promise((resolve) => side.child.once('exit', resolve)));
  for (const side of running) side.child.send('stop');
  await Promise.all(exited);
  execFileSync('git', ['-C', root, 'worktree', 'remove', '--force', other], { stdio: 'ignore' });
  rmSync(join(other, '..'), { recursive: true, force: true });
}
