/**
 * The rate-limit policy on Redis, shared by every process of a deployment: one key's 100 requests per second
 * are 100 in total however many processes or machines answer them.
 *
 * While Redis cannot be reached (at start, or after it went away) or does not answer (it hangs: a command goes
 * unanswered for 100 ms), each limiter falls back to its in-memory insurance limiter: requests keep being served and
 * limited, but each process then counts on its own, so a deployment of N processes lets up to N times the budget
 * through until Redis answers again. Requests are never refused because Redis is down, and are held at most 100 ms
 * by one that hangs (the command that finds the hang); the shared counts take over again as soon as a probe shows
 * Redis answering.
 *
 * An authenticated request's two windows (its key's, its workspace's) are counted by one script, so a request waits
 * on one round trip to Redis, not on each limiter in turn.
 */
import { type Command, Redis, type RedisOptions } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitSettings } from './documented-limits.js';
import {
  addressKeyOf,
  addressWindows,
  consumeInTurn,
  type RateLimitPolicy,
  type RateLimitWindow,
  type RequestLimiters,
  type RequestWindows,
  rateLimitWindows,
  settingsWithDefaults,
  sizedLimiters,
} from './rate-limits.js';

export interface RedisRateLimitOptions {
  /** `redis://…` or `rediss://…`. */
  url: string;
  /** Put before every key, so deployments (and test runs) sharing one Redis never count each other's requests. */
  keyPrefix: string;
  /** Told when Redis becomes unreachable (limits then hold per process) and when it answers again. */
  onAvailabilityChange?: (available: boolean, error?: Error) => void;
}

export interface RedisRateLimits {
  policy: RateLimitPolicy;
  /** Resolves true once Redis answers, or false when it has not within `timeoutMs` (the insurance limiters serve meanwhile). */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A command Redis has not answered by then means Redis hangs: the request is served by the insurance limiter
 * instead, and so is every request after it until a probe is answered. Well above a healthy round trip (under a
 * millisecond on a local network), well below what a client would notice.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 100;
/** While Redis hangs, how often a PING asks whether it answers again. */
const probeIntervalMs = 200;

/**
 * A request's two windows in one script, so one round trip: the key's window counted first (as the limiter's own
 * script does: a window starts at 0 with its length as expiry); the workspace's counted only when the key's admitted
 * the request, else only read; the key's point given back when the workspace's refuses. Each window's count and
 * milliseconds left, -1 for a workspace window not started.
 * KEYS: the key's window, the workspace's. ARGV: the key's points and seconds, the workspace's points and seconds.
 */
const consumeBothScript = `
local function consume(name, seconds)
  redis.call('set', name, 0, 'EX', seconds, 'NX')
  local consumed = redis.call('incrby', name, 1)
  local ttl = redis.call('pttl', name)
  if ttl == -1 then
    redis.call('expire', name, seconds)
    ttl = 1000 * seconds
  end
  return {consumed, ttl}
end
local key = consume(KEYS[1], ARGV[2])
if key[1] > tonumber(ARGV[1]) then
  local counted = redis.call('get', KEYS[2])
  if not counted then return {key[1], key[2], -1, -1} end
  return {key[1], key[2], tonumber(counted), redis.call('pttl', KEYS[2])}
end
local workspace = consume(KEYS[2], ARGV[4])
if workspace[1] > tonumber(ARGV[3]) then key[1] = redis.call('decrby', KEYS[1], 1) end
return {key[1], key[2], workspace[1], workspace[2]}
`;

/** A window as rate-limiter-flexible reports it, from a count and the milliseconds left. */
function windowRes(limiter: RateLimiterAbstract, consumed: number, msLeft: number): RateLimiterRes {
  return new RateLimiterRes(Math.max(limiter.points - consumed, 0), msLeft, consumed);
}

type ConsumeBoth = (
  keyWindow: string,
  workspaceWindow: string,
  keyPoints: number,
  keySeconds: number,
  workspacePoints: number,
  workspaceSeconds: number,
) => Promise<[number, number, number, number]>;

/** ioredis that tells `onTimeout` of every command Redis left unanswered past the command timeout. */
class WatchedRedis extends Redis {
  onTimeout = () => {};
  /** When the connection last brought anything from Redis (`performance.now()`). */
  private heardAt = 0;

  constructor(url: string, options: RedisOptions) {
    super(url, options);
    this.on('connect', () =>
      this.stream.on('data', () => {
        this.heardAt = performance.now();
      }),
    );
  }

  /** Whether anything came from Redis since `at`. */
  heardSince(at: number): boolean {
    return this.heardAt >= at;
  }

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    const sent = super.sendCommand(command, stream);
    // The caller handles the rejection; this only looks at why.
    command.promise.catch((error: Error) => {
      if (error.message === 'Command timed out') this.onTimeout();
    });
    return sent;
  }
}

export function redisRateLimits(given: RateLimitSettings, options: RedisRateLimitOptions): RedisRateLimits {
  const settings = settingsWithDefaults(given);
  const client = new WatchedRedis(options.url, {
    // Without a connection a command fails at once (and the insurance limiter answers) instead of queueing.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  });
  let available: boolean | undefined;
  let closing = false;
  const report = (now: boolean, error?: Error) => {
    if (available === now || closing) return;
    // The first failure to connect is worth telling; every retry after it is not.
    available = now;
    options.onAvailabilityChange?.(now, error);
  };

  // A Redis that hangs keeps its connection 'ready'; `answering` is what this process last saw of it instead.
  let answering = true;
  let probe: NodeJS.Timeout | undefined;
  const answers = () => {
    answering = true;
    clearTimeout(probe);
    probe = undefined;
    report(true);
  };
  const probeLater = () => {
    probe = setTimeout(() => {
      if (closing) return;
      client.ping().then(answers, probeLater);
    }, probeIntervalMs);
    probe.unref();
  };
  client.onTimeout = () => {
    if (!answering || closing) return;
    // From now on the insurance limiters answer. A timer can fire late, though, when this process was busy: a turn
    // of the event loop runs its timers before it reads its sockets, so a reply may be waiting unread. Replies
    // waiting are read before setImmediate's turn comes: if anything arrived by then, Redis answers and this
    // process was the slow one.
    answering = false;
    const timedOutAt = performance.now();
    setImmediate(() => {
      if (answering || closing) return;
      if (client.heardSince(timedOutAt)) {
        answering = true;
        return;
      }
      report(false, new Error(`Redis did not answer within ${REDIS_COMMAND_TIMEOUT_MS} ms`));
      probeLater();
    });
  };
  client.on('ready', answers);
  // ioredis emits an error per failed reconnection; without a listener each would be printed.
  client.on('error', (error: Error) => report(false, error));
  client.on('close', () => report(false));

  // What the limiters see of the client. rate-limiter-flexible asks the insurance limiter at once, without sending a
  // command, while the ioredis `status` is not 'ready' (`rejectIfRedisNotReady`): so the status they read is also
  // 'not ready' while Redis hangs. Everything else is the client itself.
  const limiterView = new Proxy(client, {
    get(target, property) {
      if (property === 'status') return answering ? target.status : 'unanswering';
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' && property !== 'constructor' ? value.bind(target) : value;
    },
  });

  // Sent as EVALSHA, and once as EVAL when Redis does not know the script yet (ioredis's defined commands).
  client.defineCommand('consumeBoth', { numberOfKeys: 2, lua: consumeBothScript });
  const consumeBothInRedis = (client as unknown as { consumeBoth: ConsumeBoth }).consumeBoth.bind(client);

  const consumeBoth = async (limiters: RequestLimiters, credentialId: string, workspaceId: string): Promise<RequestWindows> => {
    const { perKey, perWorkspace } = limiters;
    // Not connected, or hung: the limiters themselves go to their insurance limiters at once.
    if (!answering || client.status !== 'ready') return consumeInTurn(limiters, credentialId, workspaceId);
    let counts: [number, number, number, number];
    try {
      counts = await consumeBothInRedis(
        perKey.getKey(credentialId),
        perWorkspace.getKey(workspaceId),
        perKey.points,
        perKey.duration,
        perWorkspace.points,
        perWorkspace.duration,
      );
    } catch {
      // A timeout has just marked Redis as not answering (or the connection broke): the request is counted by the
      // insurance limiters, as a single limiter's command would be.
      return consumeInTurn(limiters, credentialId, workspaceId);
    }
    const [keyCount, keyMsLeft, workspaceCount, workspaceMsLeft] = counts.map(Number) as typeof counts;
    const key = windowRes(perKey, keyCount, keyMsLeft);
    const workspace = workspaceCount < 0 ? null : windowRes(perWorkspace, workspaceCount, workspaceMsLeft);
    const refusedBy = keyCount > perKey.points ? 'key' : workspaceCount > perWorkspace.points ? 'workspace' : null;
    return { key, workspace, refusedBy };
  };

  const limiter = (keyPrefix: string, points: number, duration: number): RateLimiterAbstract =>
    new RateLimiterRedis({
      storeClient: limiterView,
      keyPrefix: `${options.keyPrefix}:${keyPrefix}`,
      points,
      duration,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
    });

  // Same keys whatever the size: a workspace whose limits change keeps the count of its current window.
  const windowLimiter = (window: RateLimitWindow, points: number) =>
    limiter(rateLimitWindows[window].keyPrefix, points, rateLimitWindows[window].duration);
  const addressLimiter = (window: keyof typeof addressWindows, points: number) =>
    limiter(addressWindows[window].keyPrefix, points, addressWindows[window].duration);
  return {
    policy: {
      perKey: windowLimiter('perKey', settings.perKeyPerSecond),
      perWorkspace: windowLimiter('perWorkspace', settings.perWorkspacePerMinute),
      publicPerWorkspace: windowLimiter('publicPerWorkspace', settings.publicPerWorkspacePerMinute),
      failedAuthPerAddress: addressLimiter('failedAuthPerAddress', settings.failedAuthPerAddressPerMinute),
      publicPerAddress: addressLimiter('publicPerAddress', settings.publicPerAddressPerMinute),
      addressKey: addressKeyOf(settings),
      sized: sizedLimiters(windowLimiter),
      consumeBoth,
    },
    ready: (timeoutMs) =>
      client.status === 'ready'
        ? Promise.resolve(true)
        : new Promise((resolve) => {
            const timer = setTimeout(() => {
              client.off('ready', onReady);
              resolve(false);
            }, timeoutMs);
            const onReady = () => {
              clearTimeout(timer);
              resolve(true);
            };
            client.once('ready', onReady);
          }),
    close: async () => {
      closing = true;
      clearTimeout(probe);
      client.disconnect();
    },
  };
}
