/**
 * Configuration from environment variables. Every variable is listed here with its default and meaning;
 * `npm start -- --help` prints this table, and docs/operating/configuration.md repeats it (test/docs/readme.test.ts
 * checks the two agree).
 */

import addressparser from 'nodemailer/lib/addressparser';
import { type ConcurrencySettings, defaultConcurrency } from './domain/concurrency-slots.js';
import { defaultBackoff } from './domain/integrations/retry-schedule.js';
import { parseAllowlistEntry } from './domain/keys/ip-allowlist.js';
import { defaultRateLimits, type RateLimitSettings } from './http/documented-limits.js';
import type { ConnectionLimits } from './listeners.js';

export interface Config {
  port: number;
  host: string;
  httpPort: number | null;
  dataDir: string;
  databaseUrl: string | null;
  /** Connections each process's PostgreSQL pool opens at most for requests. */
  databasePoolSize: number;
  tlsCert: string | null;
  tlsKey: string | null;
  trustedProxies: string[];
  publicBaseUrl: string | null;
  rateLimits: RateLimitSettings;
  /** Signs proof-of-work challenges; null: the key kept in DATA_DIR (created on first start). */
  challengeHmacKey: string | null;
  validateResponses: boolean;
  logLevel: string;
  allowPrivateWebhookUrls: boolean;
  webhookRetryBaseMs: number;
  deprecation: { at: string; sunset: string; successor: string } | null;
  /** Rate-limit counters in Redis, shared by every process; null: each process counts in memory. */
  redis: { url: string; keyPrefix: string } | null;
  /** Server processes sharing the port (node:cluster); more than one needs `databaseUrl`. */
  workers: number;
  connectionLimits: ConnectionLimits;
  concurrency: ConcurrencySettings;
  /** Where mail goes out (smtp:// or smtps://, user and password in it); null: written to files in DATA_DIR/mail. */
  smtpUrl: string | null;
  /** The From of every message (`Name <address>`). */
  mailFrom: string;
}

/**
 * The IPv6 networks the per-address limits may count as one client: at most a /32 (a whole provider's allocation; a
 * wider one would count unrelated clients together), at least a single address.
 */
const ipv6PrefixLengths = { min: 32, max: 128 } as const;

interface Variable {
  name: string;
  default: string;
  description: string;
}

export const variables: Variable[] = [
  { name: 'PORT', default: '8443', description: 'HTTPS port.' },
  { name: 'HOST', default: '0.0.0.0', description: 'Address to listen on.' },
  {
    name: 'HTTP_PORT',
    default: '',
    description:
      'Optional plain-HTTP port; every request on it gets 403 https_required, unless it comes from TRUSTED_PROXIES with ' +
      'X-Forwarded-Proto: https (a load balancer that terminates TLS).',
  },
  {
    name: 'DATA_DIR',
    default: './data',
    description: 'Where the SQLite database (form-funnel.db) and the generated TLS certificate live.',
  },
  {
    name: 'DATABASE_URL',
    default: '',
    description:
      'postgres://user:password@host:5432/database: keep the data in PostgreSQL (migrated at start) instead of the SQLite file in ' +
      'DATA_DIR, so several processes or machines can share it.',
  },
  {
    name: 'DATABASE_POOL_SIZE',
    default: '10',
    description:
      'Connections each server process opens at most to PostgreSQL for requests (each also holds one for the periodic ' +
      "jobs' lock and one listening for cache changes); more requests wait for a free one, up to 2 s, then get 503.",
  },
  {
    name: 'TLS_CERT',
    default: '',
    description: 'PEM certificate file; with TLS_KEY. Unset: a self-signed certificate is created in DATA_DIR on first start.',
  },
  { name: 'TLS_KEY', default: '', description: 'PEM private key file for TLS_CERT.' },
  {
    name: 'TRUSTED_PROXIES',
    default: '',
    description: 'Comma-separated addresses/CIDR ranges whose X-Forwarded-For and X-Forwarded-Proto are believed.',
  },
  {
    name: 'PUBLIC_BASE_URL',
    default: '',
    description:
      'Where clients and respondents reach the service (e.g. https://api.example.com): printed at start, the start of ' +
      "hosted forms' URLs, and the one origin of their pages' key. Unset: https://localhost:PORT, and the key allows " +
      'the host each request names.',
  },
  {
    name: 'RATE_LIMIT_PER_KEY_PER_SECOND',
    default: String(defaultRateLimits.perKeyPerSecond),
    description: 'Requests per second per API key.',
  },
  {
    name: 'RATE_LIMIT_PER_WORKSPACE_PER_MINUTE',
    default: String(defaultRateLimits.perWorkspacePerMinute),
    description: 'Requests per minute per workspace with its secret API keys and OAuth tokens (publishable keys have their own budget).',
  },
  {
    name: 'RATE_LIMIT_FAILED_AUTH_PER_MINUTE',
    default: String(defaultRateLimits.failedAuthPerAddressPerMinute),
    description: 'Failed authentications per client address per minute before 429.',
  },
  {
    name: 'PUBLIC_RATE_LIMIT_PER_ADDRESS_PER_MINUTE',
    default: String(defaultRateLimits.publicPerAddressPerMinute),
    description: 'Public requests (/v1/public/..., publishable keys) per client address per minute, counted before any other work.',
  },
  {
    name: 'PUBLIC_RATE_LIMIT_PER_WORKSPACE_PER_MINUTE',
    default: String(defaultRateLimits.publicPerWorkspacePerMinute),
    description:
      "Requests per minute of one workspace's publishable keys together (its forms' visitors): a budget apart from " +
      "RATE_LIMIT_PER_WORKSPACE_PER_MINUTE, so visitors never spend the secret keys' budget. An Enterprise workspace's " +
      'own per-workspace limit raises it where larger, and never lowers it.',
  },
  {
    name: 'RATE_LIMIT_IPV6_PREFIX_LENGTH',
    default: String(defaultRateLimits.ipv6PrefixLength),
    description:
      'The per-address limits (public requests, failed authentications, MAX_CONNECTIONS_PER_ADDRESS) count an IPv6 client by ' +
      'its network of this many bits ' +
      `(${ipv6PrefixLengths.min} to ${ipv6PrefixLengths.max}; 128: each address alone); IPv4 clients, and IPv4-mapped IPv6 ` +
      'addresses, by their address.',
  },
  {
    name: 'CHALLENGE_HMAC_KEY',
    default: '',
    description:
      'Secret (at least 32 characters) that signs proof-of-work challenges; every process and machine of a deployment needs the ' +
      'same one. Unset: a random key is created in DATA_DIR (challenge-hmac.key) on first start.',
  },
  {
    name: 'VALIDATE_RESPONSES',
    default: 'true',
    description: 'Check every response against the contract (a violation becomes a logged 500).',
  },
  { name: 'LOG_LEVEL', default: 'info', description: 'pino log level (trace, debug, info, warn, error, fatal, silent).' },
  {
    name: 'ALLOW_PRIVATE_WEBHOOK_URLS',
    default: 'false',
    description: 'Allow webhook URLs on loopback/private/link-local addresses (for local testing only).',
  },
  {
    name: 'WEBHOOK_RETRY_BASE_MS',
    default: String(defaultBackoff.baseMs),
    description:
      'Ceiling of the first webhook retry delay, doubled for each later one (with jitter). For local development, 1000 retries within ' +
      'seconds.',
  },
  {
    name: 'DEPRECATION_AT',
    default: '',
    description: 'ISO date when v1 was deprecated; set it (with SUNSET_AT and SUCCESSOR_URL) to send Deprecation, Sunset and Link headers.',
  },
  { name: 'SUNSET_AT', default: '', description: 'ISO date after which v1 may stop answering (Sunset header).' },
  { name: 'SUCCESSOR_URL', default: '', description: 'URL of the successor version (Link rel="successor-version").' },
  {
    name: 'TLS_HANDSHAKE_TIMEOUT_MS',
    default: '10000',
    description: 'A connection that has not finished its TLS handshake this long after connecting is closed.',
  },
  {
    name: 'HEADERS_TIMEOUT_MS',
    default: '20000',
    description: 'A request whose headers have not all arrived this long after its first byte gets 408 and is closed.',
  },
  {
    name: 'REQUEST_TIMEOUT_MS',
    default: '60000',
    description: 'A request whose body has not all arrived this long after its first byte gets 408 (at least HEADERS_TIMEOUT_MS).',
  },
  { name: 'KEEP_ALIVE_TIMEOUT_MS', default: '5000', description: 'An idle kept-alive connection is closed after this long.' },
  {
    name: 'MAX_CONNECTIONS',
    default: '10000',
    description: 'Open connections over all clients; more are closed at once. Keep it below the process file-descriptor limit.',
  },
  {
    name: 'MAX_CONNECTIONS_PER_ADDRESS',
    default: '200',
    description:
      'Open connections from one remote address; more are closed at once. 0: no cap (behind a load balancer, whose address all ' +
      'connections share).',
  },
  {
    name: 'REDIS_URL',
    default: '',
    description:
      'Redis URL (redis://host:6379) for rate-limit counters shared by every process. Unset: each process counts in memory. While ' +
      'Redis is unreachable, each process counts on its own until it answers again.',
  },
  {
    name: 'REDIS_KEY_PREFIX',
    default: 'form-funnel',
    description: 'Prefix of every Redis key the server writes; deployments sharing one Redis need different prefixes.',
  },
  {
    name: 'EXPORT_STALL_TIMEOUT_MS',
    default: String(defaultConcurrency.streamStallTimeoutMs),
    description:
      'A streamed response (the submissions export) whose written data has not drained for this long is cut off: its client ' +
      'stopped reading.',
  },
  {
    name: 'EXPORTS_PER_KEY',
    default: String(defaultConcurrency.exportsPerKey),
    description: 'Exports one API key (or OAuth grant) may hold open at a time, per process; more get 429 too_many_exports.',
  },
  {
    name: 'EXPORTS_PER_WORKSPACE',
    default: String(defaultConcurrency.exportsPerWorkspace),
    description: 'Exports one workspace may hold open at a time over all its keys, per process; more get 429 too_many_exports.',
  },
  {
    name: 'SEARCH_SCANS_PER_WORKSPACE',
    default: String(defaultConcurrency.scansPerWorkspace),
    description: 'Submission searches with q that one workspace runs at a time, per process; more wait in a queue.',
  },
  {
    name: 'SEARCH_SCAN_QUEUE_PER_WORKSPACE',
    default: String(defaultConcurrency.scanQueuePerWorkspace),
    description: 'Searches with q of one workspace that may wait for a turn, per process; more get 429 too_many_searches.',
  },
  {
    name: 'SMTP_URL',
    default: '',
    description:
      'smtp://user:password@host:587 (STARTTLS when offered) or smtps://user:password@host:465: the server that sends ' +
      'invitations and sign-in links. Unset: each message is written as an .eml file in DATA_DIR/mail and its link logged.',
  },
  { name: 'MAIL_FROM', default: 'Form-Funnel <no-reply@localhost>', description: 'The From address of every message sent.' },
  {
    name: 'WORKERS',
    default: '1',
    description: 'Server processes sharing PORT (node:cluster); periodic jobs run in one of them at a time. Above 1 needs DATABASE_URL.',
  },
];

export class ConfigError extends Error {}

function read(env: NodeJS.ProcessEnv, name: string): string {
  const variable = variables.find((entry) => entry.name === name)!;
  return (env[name] ?? variable.default).trim();
}

function integer(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number {
  const value = Number(read(env, name));
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}.`);
  return value;
}

/** A URL's scheme with its colon, or '' for what is not a URL. */
function protocolOf(text: string): string {
  try {
    return new URL(text).protocol;
  } catch {
    return '';
  }
}

/** `address@host` or `Name <address@host>`: one mailbox, as a From header names its sender. */
function isOneMailbox(text: string): boolean {
  const parsed = addressparser(text, { flatten: true });
  return parsed.length === 1 && /^[^\s@]+@[^\s@]+$/.test(parsed[0]!.address ?? '');
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = read(env, name).toLowerCase();
  if (!['true', 'false', '1', '0'].includes(value)) throw new ConfigError(`${name} must be true or false.`);
  return value === 'true' || value === '1';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const tlsCert = read(env, 'TLS_CERT') || null;
  const tlsKey = read(env, 'TLS_KEY') || null;
  if ((tlsCert === null) !== (tlsKey === null)) throw new ConfigError('Set TLS_CERT and TLS_KEY together.');
  const deprecationAt = read(env, 'DEPRECATION_AT');
  const sunsetAt = read(env, 'SUNSET_AT');
  const successor = read(env, 'SUCCESSOR_URL');
  if (deprecationAt && (!sunsetAt || !successor)) throw new ConfigError('DEPRECATION_AT needs SUNSET_AT and SUCCESSOR_URL.');
  for (const [name, value] of [
    ['DEPRECATION_AT', deprecationAt],
    ['SUNSET_AT', sunsetAt],
  ] as const) {
    if (value && Number.isNaN(Date.parse(value))) throw new ConfigError(`${name} must be an ISO date.`);
  }
  const trustedProxies = read(env, 'TRUSTED_PROXIES')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  // Read like a key's IP allowlist: an entry that does not parse (or spells IPv4 other than as four decimal
  // numbers) would silently trust nobody, or someone else.
  const badProxy = trustedProxies.find((entry) => !parseAllowlistEntry(entry));
  if (badProxy !== undefined) throw new ConfigError(`TRUSTED_PROXIES: ${badProxy} is not an IPv4/IPv6 address or CIDR range.`);
  const httpPort = read(env, 'HTTP_PORT');
  const databaseUrl = read(env, 'DATABASE_URL') || null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\/./.test(databaseUrl))
    throw new ConfigError('DATABASE_URL must be a postgres:// (or postgresql://) URL.');
  const redisUrl = read(env, 'REDIS_URL');
  const keyPrefix = read(env, 'REDIS_KEY_PREFIX');
  if (redisUrl && !keyPrefix) throw new ConfigError('REDIS_KEY_PREFIX must not be empty.');
  const challengeHmacKey = read(env, 'CHALLENGE_HMAC_KEY') || null;
  if (challengeHmacKey !== null && challengeHmacKey.length < 32)
    throw new ConfigError('CHALLENGE_HMAC_KEY must be at least 32 characters.');
  const workers = integer(env, 'WORKERS', 1, 256);
  // SQLite is a file one process writes: several processes would each keep their own rate limits and jobs.
  const publicBaseUrl = read(env, 'PUBLIC_BASE_URL') || null;
  // Its origin is the hosted pages' key's one origin (src/http/cors.ts): a URL a browser can be at, or nothing.
  if (publicBaseUrl !== null && !/^https?:$/.test(protocolOf(publicBaseUrl))) {
    throw new ConfigError('PUBLIC_BASE_URL must be an https:// (or http://) URL.');
  }
  if (workers > 1 && !databaseUrl) throw new ConfigError('WORKERS above 1 needs DATABASE_URL (PostgreSQL): SQLite serves one process.');
  const smtpUrl = read(env, 'SMTP_URL') || null;
  // The value is not repeated in the message: it may hold a password.
  if (smtpUrl !== null && !(/^smtps?:$/.test(protocolOf(smtpUrl)) && new URL(smtpUrl).hostname !== '')) {
    throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL with a host (smtp://user:password@host:587).');
  }
  const mailFrom = read(env, 'MAIL_FROM');
  if (!isOneMailbox(mailFrom)) throw new ConfigError('MAIL_FROM must be one address, as in Form-Funnel <no-reply@example.com>.');
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', 1, 3_600_000);
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 1, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError('HEADERS_TIMEOUT_MS must not be above REQUEST_TIMEOUT_MS.');
  return {
    port: integer(env, 'PORT', 0, 65535),
    host: read(env, 'HOST'),
    httpPort: httpPort === '' ? null : integer(env, 'HTTP_PORT', 0, 65535),
    dataDir: read(env, 'DATA_DIR'),
    databaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 1, 1000),
    tlsCert,
    tlsKey,
    trustedProxies,
    publicBaseUrl,
    rateLimits: {
      perKeyPerSecond: integer(env, 'RATE_LIMIT_PER_KEY_PER_SECOND', 1, 1_000_000),
      perWorkspacePerMinute: integer(env, 'RATE_LIMIT_PER_WORKSPACE_PER_MINUTE', 1, 100_000_000),
      failedAuthPerAddressPerMinute: integer(env, 'RATE_LIMIT_FAILED_AUTH_PER_MINUTE', 1, 1_000_000),
      publicPerAddressPerMinute: integer(env, 'PUBLIC_RATE_LIMIT_PER_ADDRESS_PER_MINUTE', 1, 1_000_000),
      publicPerWorkspacePerMinute: integer(env, 'PUBLIC_RATE_LIMIT_PER_WORKSPACE_PER_MINUTE', 1, 100_000_000),
      ipv6PrefixLength: integer(env, 'RATE_LIMIT_IPV6_PREFIX_LENGTH', ipv6PrefixLengths.min, ipv6PrefixLengths.max),
    },
    challengeHmacKey,
    validateResponses: flag(env, 'VALIDATE_RESPONSES'),
    logLevel: read(env, 'LOG_LEVEL'),
    allowPrivateWebhookUrls: flag(env, 'ALLOW_PRIVATE_WEBHOOK_URLS'),
    webhookRetryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 1, defaultBackoff.capMs),
    deprecation: deprecationAt ? { at: deprecationAt, sunset: sunsetAt, successor } : null,
    redis: redisUrl ? { url: redisUrl, keyPrefix } : null,
    workers,
    connectionLimits: {
      tlsHandshakeTimeoutMs: integer(env, 'TLS_HANDSHAKE_TIMEOUT_MS', 1, 3_600_000),
      headersTimeoutMs,
      requestTimeoutMs,
      keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 1, 3_600_000),
      maxConnections: integer(env, 'MAX_CONNECTIONS', 1, 10_000_000),
      maxConnectionsPerAddress: integer(env, 'MAX_CONNECTIONS_PER_ADDRESS', 0, 10_000_000),
      ipv6PrefixLength: integer(env, 'RATE_LIMIT_IPV6_PREFIX_LENGTH', ipv6PrefixLengths.min, ipv6PrefixLengths.max),
    },
    concurrency: {
      streamStallTimeoutMs: integer(env, 'EXPORT_STALL_TIMEOUT_MS', 1, 3_600_000),
      exportsPerKey: integer(env, 'EXPORTS_PER_KEY', 1, 10_000),
      exportsPerWorkspace: integer(env, 'EXPORTS_PER_WORKSPACE', 1, 10_000),
      scansPerWorkspace: integer(env, 'SEARCH_SCANS_PER_WORKSPACE', 1, 10_000),
      scanQueuePerWorkspace: integer(env, 'SEARCH_SCAN_QUEUE_PER_WORKSPACE', 0, 10_000),
    },
    smtpUrl,
    mailFrom,
  };
}

export function helpText(): string {
  const width = Math.max(...variables.map((variable) => variable.name.length));
  const lines = variables.map(
    (variable) => `  ${variable.name.padEnd(width)}  ${variable.description}${variable.default ? ` (default: ${variable.default})` : ''}`,
  );
  return ['Form-Funnel reference server', '', 'Usage: npm start [-- --help]', '', 'Environment variables:', ...lines, ''].join('\n');
}
