/**
 * The reference server in a process of its own, from source (`node --import tsx src/server.ts`: the same code that
 * `npm start` compiles into build/ and runs; test/e2e/start.test.ts covers `npm start` itself), in one of two
 * deployments the end-to-end tests run against: one process on SQLite in a data directory of its own, or
 * `WORKERS=2` on a fresh PostgreSQL database (copied from the run's template) with the rate limits in Redis under a
 * key prefix of its own. `admin` runs `npm run admin -- …` against the same data, so the operator's first key comes
 * from the command line.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from '../../support/ports.js';
import { createTestDatabase } from '../../support/postgres.js';

const run = promisify(execFile);
const root = new URL('../../../', import.meta.url).pathname;
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Deployment {
  /** Names the deployment in test titles. */
  name: string;
  /** Server processes answering on the port. */
  workers: number;
  /** Configured as one machine behind a load balancer on 127.0.0.1 (TRUSTED_PROXIES), which may forward plain HTTP. */
  behindLoadBalancer: boolean;
  /** Where the data lives and how the processes share their counts; dropped by `release`. */
  provision(): Promise<{ env: Record<string, string>; release(): Promise<void> }>;
}

export const singleProcessOnSqlite: Deployment = {
  name: 'one process on SQLite',
  workers: 1,
  behindLoadBalancer: false,
  provision: async () => ({ env: {}, release: async () => {} }),
};

export const twoWorkersOnPostgresAndRedis: Deployment = {
  name: 'WORKERS=2 on PostgreSQL and Redis, behind a load balancer',
  workers: 2,
  behindLoadBalancer: true,
  provision: async () => {
    const database = await createTestDatabase();
    const prefix = `ff-e2e-${randomBytes(6).toString('hex')}`;
    return {
      env: {
        DATABASE_URL: database.url,
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: prefix,
        WORKERS: '2',
        TRUSTED_PROXIES: '127.0.0.1',
        MAX_CONNECTIONS_PER_ADDRESS: '0',
      },
      release: async () => {
        await database.drop();
        await deleteRedisKeys(prefix);
      },
    };
  },
};

export const deployments: readonly Deployment[] = [singleProcessOnSqlite, twoWorkersOnPostgresAndRedis];

export async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

export { freePort };

export type ServerProcess = Awaited<ReturnType<typeof startServerProcess>>;

/**
 * Starts the deployment and waits for its banner (printed once every worker listens). `dataDir`: a data
 * directory the caller made and removes (to start twice on the same data); by default a temporary one of its own.
 */
export async function startServerProcess(deployment: Deployment, options: { env?: Record<string, string>; dataDir?: string } = {}) {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'form-funnel-e2e-'));
  const provisioned = await deployment.provision();
  const [port, httpPort] = [await freePort(), await freePort()];
  const { NODE_CLUSTER_SCHED_POLICY: _policy, ...inherited } = process.env;
  const env = {
    // The cluster's own way of handing out connections (in turn, on Linux), whatever the runner sets.
    ...inherited,
    DATA_DIR: dataDir,
    PORT: String(port),
    HTTP_PORT: String(httpPort),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...provisioned.env,
    ...options.env,
  };
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    await provisioned.release();
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    for (const started = Date.now(); !output.includes('Form-Funnel API listening'); ) {
      if (child.exitCode !== null || Date.now() - started > 110_000) throw new Error(`the server did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    child,
    port,
    httpPort,
    dataDir,
    /** The self-signed certificate the server made in its data directory. */
    certificate: readFileSync(join(dataDir, 'tls-cert.pem'), 'utf8'),
    /** Everything the processes wrote so far (the primary's and every worker's). */
    output: () => output,
    /** Resolves with the primary's exit code. */
    exited,
    /** `npm run admin -- <args>` against the deployment's data. */
    admin: async (...args: string[]) =>
      (await run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args], { cwd: root, env })).stdout,
    /** The process that answered the request with this id, from its request log line. */
    pidOf: async (requestId: string): Promise<number> => {
      for (const started = Date.now(); Date.now() - started < 5000; await new Promise((resolve) => setTimeout(resolve, 20))) {
        const line = output.split('\n').find((entry) => entry.includes('"msg":"request"') && entry.includes(`"request_id":"${requestId}"`));
        if (line) return (JSON.parse(line) as { pid: number }).pid;
      }
      throw new Error(`no request log line for ${requestId}`);
    },
    /** Kills what is still running and removes its data. */
    stop,
  };
}
