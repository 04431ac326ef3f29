/**
 * Operator commands. `bootstrap` creates a workspace with its first admin's account and prints a one-time sign-in
 * link for them (15 minutes) and the workspace's first live and test admin keys, once: they are stored only as
 * hashes. `sign-in-link` prints a new link for a person the service knows (the operator's recovery path).
 * `oauth-client` registers a partner's application; `oauth-authorize` records a user's consent without the consent
 * page (for scripts and the conformance kit) and prints the redirect with the authorization code.
 *
 *   npm run admin -- bootstrap --workspace "Acme" --plan business [--email owner@acme.test] [--json]
 *   npm run admin -- sign-in-link --email owner@acme.test [--json]
 *   npm run admin -- oauth-client --name "Partner" --redirect-uri https://partner.example/callback [--confidential] [--json]
 *   npm run admin -- oauth-authorize --workspace ws_… --client-id client_… --scope "read read_write" \
 *     --redirect-uri https://partner.example/callback --code-challenge=<S256 challenge> [--state s] \
 *     [--environment live|test] [--json]
 *   npm run admin -- workspace-limits --workspace ws_… --per-key-per-second 500 --per-workspace-per-minute 60000 [--json]
 *   npm run admin -- workspace-limits --workspace ws_… --reset [--json]
 *
 * `workspace-limits` sets an Enterprise workspace's own rate limits (refused for other plans); every server applies
 * them from its next request, since the workspace is read on each one.
 *
 * `runAdmin` is the same command for a caller in the same process (the tests): it reads the environment and writes
 * its output where it is told, and runs only when this file is the process's entry point.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { dnsWebhookUrlPolicy } from '../adapters/dns-resolver.js';
import { type Config, ConfigError, loadConfig } from '../config.js';
import type { Plan } from '../contract.js';
import { isEmail } from '../domain/email.js';
import { isAppError } from '../domain/errors.js';
import { noEvents } from '../domain/events.js';
import { authorizeOAuthClient } from '../domain/oauth/authorize.js';
import { registerOAuthClient } from '../domain/oauth/clients.js';
import { ensureAccount, knownPerson, normalEmail } from '../domain/people/accounts.js';
import { signInLinkFor } from '../domain/people/links.js';
import type { Services } from '../domain/services.js';
import { bootstrapWorkspace } from '../domain/workspaces/bootstrap.js';
import { setWorkspaceRateLimits } from '../domain/workspaces/rate-limits.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/types.js';
import { serverBaseUrl } from './admin-invocation.js';

const plans: readonly Plan[] = ['free', 'pro', 'business', 'enterprise'];

/** Where a run reads its configuration and writes what it prints: the process's own, or a test's. */
export interface AdminIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

interface Command {
  /** The command's usage lines, printed by `<command> --help` and with every usage error. */
  usage: string;
  run(args: string[], usage: string, io: AdminIo): Promise<number>;
}

/** The first admin's address when none is given (a reserved domain): the link is printed, not sent. */
const defaultOwnerEmail = 'owner@example.com';

const commands: Record<string, Command> = {
  bootstrap: {
    usage: `npm run admin -- bootstrap --workspace <name> [--plan free|pro|business|enterprise] [--email <admin email, default ${defaultOwnerEmail}>] [--json]`,
    run: bootstrapCommand,
  },
  'sign-in-link': {
    usage: 'npm run admin -- sign-in-link --email <email of an account or member> [--json]',
    run: signInLinkCommand,
  },
  'oauth-client': {
    usage: 'npm run admin -- oauth-client --name <application name> --redirect-uri <uri> [--redirect-uri <uri>…] [--confidential] [--json]',
    run: oauthClientCommand,
  },
  'oauth-authorize': {
    usage: [
      'npm run admin -- oauth-authorize --workspace <ws_id> --client-id <client_id> --scope "<read|read_write|admin …>"',
      '                   --redirect-uri <uri> --code-challenge <S256 challenge> [--state <state>] [--environment live|test] [--json]',
      'A challenge that begins with `-` (base64url allows it) is written --code-challenge=<challenge>, or it reads as an option.',
    ].join('\n'),
    run: oauthAuthorizeCommand,
  },
  'workspace-limits': {
    usage: [
      'npm run admin -- workspace-limits --workspace <ws_id> --per-key-per-second <n> --per-workspace-per-minute <n> [--json]',
      'npm run admin -- workspace-limits --workspace <ws_id> --reset [--json]',
    ].join('\n'),
    run: workspaceLimitsCommand,
  },
};

const usage = `Usage:\n${Object.values(commands)
  .map((command) => `  ${command.usage.replaceAll('\n', '\n  ')}`)
  .join('\n')}\n\nThe commands work on the database of DATABASE_URL, else the one in DATA_DIR (see npm start -- --help).\n`;

const isHelp = (arg: string) => arg === '--help' || arg === '-h';

/**
 * The command with its arguments, as `npm run admin -- …` runs it below: the exit code it ends with. A failure that
 * is not the operator's to fix is thrown, as the process would end on it.
 */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name !== undefined && isHelp(name)) {
    io.stdout(usage);
    return 0;
  }
  const command = name === undefined ? undefined : Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (command === undefined) {
    io.stderr(`${name === undefined ? 'No command given.' : `Unknown command: ${name}.`}\n${usage}`);
    return 2;
  }
  if (rest.some(isHelp)) {
    io.stdout(`Usage: ${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, `Usage: ${command.usage}\n`, io);
  } catch (error) {
    // A bad DATA_DIR, PORT or DATABASE_URL, or a database that is missing, unreachable or refuses the login, is
    // the operator's to fix: one line, not a stack trace.
    const code = String((error as { code?: unknown }).code);
    if (!(error instanceof ConfigError) && !/^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|3D000|28P01|28000)$/.test(code)) throw error;
    io.stderr(`${(error as Error).message}\n`);
    return 2;
  }
}

/** Where the commands keep their data, and how the server they talk to is reached, as configured. */
function whereabouts(config: Config): { database: string; base: string } {
  const database =
    config.databaseUrl !== null
      ? 'the PostgreSQL database of DATABASE_URL'
      : `${join(config.dataDir, 'form-funnel.db')} (DATA_DIR=${config.dataDir})`;
  return { database, base: serverBaseUrl(config, config.port) };
}

async function bootstrapCommand(args: string[], usage: string, io: AdminIo): Promise<number> {
  const values = parsedOrUsage(
    () =>
      parseArgs({
        args,
        options: {
          workspace: { type: 'string' },
          plan: { type: 'string', default: 'business' },
          email: { type: 'string' },
          json: { type: 'boolean', default: false },
        },
      }).values,
    usage,
    io,
  );
  if (!values) return 2;
  const name = values.workspace?.trim();
  if (!name || name.length > 200) {
    io.stderr(`--workspace is required (1 to 200 characters).\n${usage}`);
    return 2;
  }
  if (!plans.includes(values.plan as Plan)) {
    io.stderr(`--plan must be one of ${plans.join(', ')}.\n${usage}`);
    return 2;
  }
  const email = normalEmail(values.email ?? defaultOwnerEmail);
  if (!isEmail(email)) {
    io.stderr(`--email ${email} is not an email address the API accepts.\n${usage}`);
    return 2;
  }
  const config = loadConfig(io.env);
  const { database, base } = whereabouts(config);
  const store = await openStore(config, { shortLived: true });
  try {
    const services = operatorServices(store, base);
    const result = await bootstrapWorkspace(services, { name, plan: values.plan as Plan, adminEmail: email });
    const link = await signInLinkFor(services, await ensureAccount(services, email));
    if (values.json) {
      io.stdout(`${JSON.stringify({ ...result, base_url: `${base}/v1`, sign_in_url: link.url, sign_in_expires_at: link.expiresAt })}\n`);
    } else {
      io.stdout(
        [
          `Workspace ${name} (${result.workspace_id}), plan ${values.plan}, in ${database}.`,
          '',
          `Sign in as its admin, ${email}, within 15 minutes (the link works once), and add a passkey:`,
          `  ${link.url}`,
          `Then open the dashboard: ${base}/dashboard`,
          '',
          `  live admin key  ${result.live_admin_key}`,
          `  test admin key  ${result.test_admin_key}`,
          '',
          'These secrets are shown once and stored only as hashes: keep them now.',
          `Check one with: curl -k ${base}/v1/me -H "Authorization: Bearer <key>"   (PORT=${config.port})`,
          '',
        ].join('\n'),
      );
    }
    return 0;
  } finally {
    await store.close();
  }
}

/** What the operator commands run with: no events, the server's address for the links they print. */
const operatorServices = (store: Store, base: string): Services => ({
  store,
  now: () => new Date(),
  events: noEvents,
  webhookUrls: dnsWebhookUrlPolicy(),
  publicBaseUrl: base,
});

async function signInLinkCommand(args: string[], usage: string, io: AdminIo): Promise<number> {
  const values = parsedOrUsage(
    () => parseArgs({ args, options: { email: { type: 'string' }, json: { type: 'boolean', default: false } } }).values,
    usage,
    io,
  );
  if (!values) return 2;
  if (!values.email?.trim()) {
    io.stderr(`--email is required.\n${usage}`);
    return 2;
  }
  const config = loadConfig(io.env);
  const { base } = whereabouts(config);
  const store = await openStore(config, { shortLived: true });
  try {
    const services = operatorServices(store, base);
    const account = await knownPerson(services, values.email);
    if (!account) {
      io.stderr(`No account or member has the email ${normalEmail(values.email)}: invite them from a workspace first.\n`);
      return 1;
    }
    const link = await signInLinkFor(services, account);
    io.stdout(
      values.json
        ? `${JSON.stringify({ email: account.email, sign_in_url: link.url, expires_at: link.expiresAt })}\n`
        : `Sign in as ${account.email} within 15 minutes (the link works once):\n  ${link.url}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * Runs an OAuth command against the server's database (DATABASE_URL, else the SQLite file in DATA_DIR); a refused
 * request prints why and exits 1.
 */
async function withServices(io: AdminIo, run: (services: Services, config: Config) => Promise<void>): Promise<number> {
  const config = loadConfig(io.env);
  const store = await openStore(config, { shortLived: true });
  try {
    await run({ store, now: () => new Date(), events: noEvents, webhookUrls: dnsWebhookUrlPolicy() }, config);
    return 0;
  } catch (error) {
    if (!isAppError(error)) throw error;
    const issues = error.details?.errors ?? [];
    const lines = issues.length > 1 ? issues.map((issue) => `  ${issue.pointer.slice(1)}: ${issue.message}`) : [];
    io.stderr([error.message, ...lines, ''].join('\n'));
    return 1;
  } finally {
    await store.close();
  }
}

/** Unknown or malformed options print the usage instead of a stack trace. */
function parsedOrUsage<T>(parse: () => T, usage: string, io: AdminIo): T | undefined {
  try {
    return parse();
  } catch (error) {
    io.stderr(`${(error as Error).message}\n${usage}`);
    return undefined;
  }
}

async function oauthClientCommand(args: string[], usage: string, io: AdminIo): Promise<number> {
  const values = parsedOrUsage(
    () =>
      parseArgs({
        args,
        options: {
          name: { type: 'string' },
          'redirect-uri': { type: 'string', multiple: true },
          confidential: { type: 'boolean', default: false },
          json: { type: 'boolean', default: false },
        },
      }).values,
    usage,
    io,
  );
  if (!values) return 2;
  if (values.name === undefined || values['redirect-uri'] === undefined) {
    io.stderr(`--name and at least one --redirect-uri are required.\n${usage}`);
    return 2;
  }
  const input = { name: values.name, redirectUris: values['redirect-uri'], confidential: values.confidential };
  return withServices(io, async (services, config) => {
    const { client, secret } = await registerOAuthClient(services, input);
    const { database, base } = whereabouts(config);
    if (values.json) {
      const shown = { client_id: client.id, name: client.name, redirect_uris: client.redirectUris };
      io.stdout(`${JSON.stringify(secret === undefined ? shown : { ...shown, client_secret: secret })}\n`);
      return;
    }
    io.stdout(
      [
        `OAuth client ${client.name}: client_id ${client.id}`,
        ...client.redirectUris.map((uri) => `  redirect URI  ${uri}`),
        '',
        secret === undefined
          ? 'A public client: it has no secret and must use PKCE (S256) in every authorization.'
          : [
              `A confidential client. Its secret, shown this once (only its hash is kept): ${secret}`,
              'It authenticates with it (HTTP Basic or client_secret) and uses PKCE (S256) in every authorization.',
            ].join('\n'),
        `Stored in ${database}; codes are exchanged at ${base}/v1/oauth/token (PORT=${config.port}).`,
        '',
      ].join('\n'),
    );
  });
}

async function oauthAuthorizeCommand(args: string[], usage: string, io: AdminIo): Promise<number> {
  const values = parsedOrUsage(
    () =>
      parseArgs({
        args,
        options: {
          workspace: { type: 'string' },
          'client-id': { type: 'string' },
          scope: { type: 'string' },
          'redirect-uri': { type: 'string' },
          'code-challenge': { type: 'string' },
          'code-challenge-method': { type: 'string', default: 'S256' },
          state: { type: 'string' },
          environment: { type: 'string' },
          json: { type: 'boolean', default: false },
        },
      }).values,
    usage,
    io,
  );
  if (!values) return 2;
  const required = ['workspace', 'client-id', 'scope', 'redirect-uri', 'code-challenge'] as const;
  const missing = required.filter((name) => values[name] === undefined);
  if (missing.length > 0) {
    io.stderr(`Missing ${missing.map((name) => `--${name}`).join(', ')}.\n${usage}`);
    return 2;
  }
  const request = {
    workspaceId: values.workspace!,
    clientId: values['client-id']!,
    scope: values.scope!,
    redirectUri: values['redirect-uri']!,
    codeChallenge: values['code-challenge']!,
    codeChallengeMethod: values['code-challenge-method']!,
    state: values.state,
    environment: values.environment,
  };
  return withServices(io, async (services) => {
    const authorization = await authorizeOAuthClient(services, request);
    if (values.json) {
      io.stdout(
        `${JSON.stringify({
          redirect_url: authorization.redirectUrl,
          code: authorization.code,
          state: authorization.state,
          scope: authorization.scopes.join(' '),
          environment: authorization.environment,
          expires_at: authorization.expiresAt,
        })}\n`,
      );
      return;
    }
    io.stdout(`${authorization.redirectUrl}\n`);
  });
}

async function workspaceLimitsCommand(args: string[], usage: string, io: AdminIo): Promise<number> {
  const values = parsedOrUsage(
    () =>
      parseArgs({
        args,
        options: {
          workspace: { type: 'string' },
          'per-key-per-second': { type: 'string' },
          'per-workspace-per-minute': { type: 'string' },
          reset: { type: 'boolean', default: false },
          json: { type: 'boolean', default: false },
        },
      }).values,
    usage,
    io,
  );
  if (!values) return 2;
  const perKey = values['per-key-per-second'];
  const perWorkspace = values['per-workspace-per-minute'];
  const givesLimits = perKey !== undefined || perWorkspace !== undefined;
  if (
    values.workspace === undefined ||
    values.reset === givesLimits ||
    (givesLimits && (perKey === undefined || perWorkspace === undefined))
  ) {
    io.stderr(`--workspace and either both limits or --reset are required.\n${usage}`);
    return 2;
  }
  const wholeNumber = (text: string) => (/^[0-9]{1,9}$/.test(text) ? Number(text) : Number.NaN);
  const limits = values.reset ? null : { perKeyPerSecond: wholeNumber(perKey!), perWorkspacePerMinute: wholeNumber(perWorkspace!) };
  const workspaceId = values.workspace;
  return withServices(io, async (services, config) => {
    const workspace = await setWorkspaceRateLimits(services, workspaceId, limits);
    const effective = workspace.rateLimits ?? {
      perKeyPerSecond: config.rateLimits.perKeyPerSecond,
      perWorkspacePerMinute: config.rateLimits.perWorkspacePerMinute,
    };
    if (values.json) {
      io.stdout(
        `${JSON.stringify({
          workspace_id: workspace.id,
          plan: workspace.plan,
          rate_limits: {
            per_key_per_second: effective.perKeyPerSecond,
            per_workspace_per_minute: effective.perWorkspacePerMinute,
            custom: workspace.rateLimits !== null,
          },
        })}\n`,
      );
      return;
    }
    io.stdout(
      [
        `Workspace ${workspace.name} (${workspace.id}): ${workspace.rateLimits ? 'its own' : 'the standard'} rate limits,`,
        `  ${effective.perKeyPerSecond} requests per second per key, ${effective.perWorkspacePerMinute} per minute for the workspace.`,
        'Every server applies them from its next request; the change is in the audit log.',
        '',
      ].join('\n'),
    );
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await runAdmin(process.argv.slice(2), {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}
