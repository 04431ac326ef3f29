/**
 * Where a load's CPU went, per request: the server's processes (the one the bench started and its workers), the
 * database's and Redis's processes, and the load generator. Read from Linux's /proc, as on every machine the benches
 * run on. The load generator is a child of the bench that has exited when its figures are read, so its CPU is the
 * growth of the bench's reaped-children time (`cutime` and `cstime`) over the measurement.
 */
import { readdirSync, readFileSync } from 'node:fs';

const msPerTick = 10; // USER_HZ is 100 on Linux.

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces), or null once the process is gone. */
function statFields(pid: number | string): { command: string; fields: string[] } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    return { command: stat.slice(stat.indexOf('(') + 1, close), fields: stat.slice(close + 2).split(' ') };
  } catch {
    return null;
  }
}

/** utime + stime, in ms; fields are numbered from the state (field 3 of stat(5)) at index 0. */
const ownMs = (fields: string[]) => (Number(fields[11]) + Number(fields[12])) * msPerTick;
const reapedChildrenMs = (fields: string[]) => (Number(fields[13]) + Number(fields[14])) * msPerTick;

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** CPU time of a process and every live descendant, in ms. */
function treeMs(pid: number): number {
  const stat = statFields(pid);
  if (!stat) return 0;
  return ownMs(stat.fields) + childrenOf(pid).reduce((sum, child) => sum + treeMs(child), 0);
}

/** CPU time of each process whose command is one of `commands`, in ms by pid. */
export function commandMs(commands: readonly string[]): Map<string, number> {
  const ms = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = statFields(pid);
    if (stat && commands.includes(stat.command)) ms.set(pid, ownMs(stat.fields));
  }
  return ms;
}

/**
 * What the processes spent between two readings: a process that started meanwhile counts from zero, and one that
 * ended meanwhile counts nothing (its time would otherwise be subtracted: a database connection closed by an idle
 * pool takes its whole life's CPU with it).
 */
export function spentBetween(before: Map<string, number>, after: Map<string, number>): number {
  let ms = 0;
  for (const [pid, now] of after) ms += now - (before.get(pid) ?? 0);
  return ms;
}

export interface CpuPerRequest {
  /** Microseconds of CPU per request, by where it was spent. */
  server_us: number;
  postgres_us: number;
  redis_us: number;
  load_generator_us: number;
  /** The server's processes as cores busy on average over the measurement (1 = one core all the time). */
  server_cores: number;
  /** Everything above, as cores busy on average (the machine has `cpus().length`). */
  total_cores: number;
  /** The whole machine as cores busy on average, from /proc/stat: the above plus the kernel's own threads and the rest. */
  machine_cores: number;
}

/** Busy and all jiffies of the machine so far (the first line of /proc/stat: user nice system idle iowait irq softirq steal). */
function machineTicks(): { busy: number; all: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  const ticks = fields.slice(0, 8).map(Number);
  const all = ticks.reduce((sum, tick) => sum + tick, 0);
  return { busy: all - ticks[3]! - ticks[4]!, all };
}

function snapshot(serverPid: number) {
  const self = statFields(process.pid)!;
  return {
    at: performance.now(),
    server: treeMs(serverPid),
    postgres: commandMs(['postgres']),
    redis: commandMs(['redis-server']),
    generator: reapedChildrenMs(self.fields),
    machine: machineTicks(),
  };
}

/**
 * Runs `load` (which must start the load generator as a child of this process and wait for it) and divides the
 * CPU each part used by the requests it reports. PostgreSQL's figure counts every postgres process of the machine
 * (on a shared machine, other databases' work too) that is still there at the end: what a process that ended
 * during the load spent is missing, so the figure is a lower bound.
 */
export async function measureCpu<T>(serverPid: number, load: () => Promise<T>, requests: (result: T) => number) {
  const before = snapshot(serverPid);
  const result = await load();
  const after = snapshot(serverPid);
  const count = Math.max(1, requests(result));
  const seconds = (after.at - before.at) / 1000;
  const us = (ms: number) => Math.round((ms * 1000) / count);
  const spent = {
    server: after.server - before.server,
    postgres: spentBetween(before.postgres, after.postgres),
    redis: spentBetween(before.redis, after.redis),
    generator: after.generator - before.generator,
  };
  const cpu: CpuPerRequest = {
    server_us: us(spent.server),
    postgres_us: us(spent.postgres),
    redis_us: us(spent.redis),
    load_generator_us: us(spent.generator),
    server_cores: Math.round((spent.server / 1000 / seconds) * 100) / 100,
    total_cores: Math.round(((spent.server + spent.postgres + spent.redis + spent.generator) / 1000 / seconds) * 100) / 100,
    machine_cores: Math.round((((after.machine.busy - before.machine.busy) * msPerTick) / 1000 / seconds) * 100) / 100,
  };
  return { result, cpu };
}
