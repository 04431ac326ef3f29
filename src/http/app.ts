/**
 * The Express application: the contract's pipeline in order, the handlers, and the published document
 * and docs. It does not listen; `src/server.ts` does, so tests can drive the same app in-process.
 */

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import pino, { type Logger } from 'pino';
import { stringify as stringifyYaml } from 'yaml';
import { dnsWebhookUrlPolicy } from '../adapters/dns-resolver.js';
import { challengeSecrets } from '../domain/challenges/proof-of-work.js';
import { type ConcurrencySettings, concurrencyLimits } from '../domain/concurrency-slots.js';
import type { EventPublisher } from '../domain/events.js';
import { integrationEvents } from '../domain/integrations/publisher.js';
import type { WebhookUrlPolicy } from '../domain/integrations/webhook-url.js';
import { coalescedLastUsed } from '../domain/keys/last-used.js';
import type { Services } from '../domain/services.js';
import { apiRequestMeter } from '../domain/usage/meter.js';
import type { Mailer } from '../mail/mailer.js';
import { type MailSender, mailSender } from '../mail/sender.js';
import type { SearchScan } from '../store/search-scan.js';
import type { Store } from '../store/types.js';
import { type Contract, loadContract } from './contract-document.js';
import { dashboardPage } from './dashboard-page.js';
import { dispatch } from './dispatch.js';
import { defaultRateLimits, type RateLimitSettings } from './documented-limits.js';
import { errorHandler, lastResort, unknownPath } from './error-handler.js';
import { formLogoFiles } from './form-logo-files.js';
import { handlers as defaultHandlers } from './handlers/index.js';
import type { Handlers } from './handlers/types.js';
import { hostedAssetLoader } from './hosted-assets.js';
import { hostedPages } from './hosted-pages.js';
import { inSequence } from './in-sequence.js';
import { oauthFlow } from './oauth-flow.js';
import { oauthMetadata } from './oauth-metadata.js';
import { peoplePages } from './people-pages.js';
import {
  assignRequestId,
  authenticateCaller,
  countFailedAuthentication,
  deprecationHeaders,
  identifyConnection,
  reportAddressLimits,
  reportAddressLimitsOnProblem,
  requireHttps,
  requireScope,
  routeOperation,
} from './pipeline.js';
import { publicAddressLimit, publicStages } from './public-stages.js';
import { memoryRateLimits, type RateLimitPolicy } from './rate-limits.js';
import { parseBody } from './request-body.js';
import { requestLog } from './request-log.js';
import { checkPlainNumbers, openApiValidator, rejectImpreciseNumbers } from './validation.js';

export interface AppOptions {
  store: Store;
  contract?: Contract;
  handlers?: Handlers;
  logger?: Logger;
  now?: () => Date;
  events?: EventPublisher;
  /** Default: public addresses only, resolved by the system resolver. */
  webhookUrls?: WebhookUrlPolicy;
  trustedProxies?: string[];
  rateLimits?: RateLimitPolicy | RateLimitSettings;
  validateResponses?: boolean;
  deprecation?: { at: string; sunset: string; successor: string } | null;
  /** How `q` reads the submissions list; default `defaultSearchScan` (tests set small windows). */
  searchScan?: SearchScan;
  /** Exports and `q` scans at a time, and the streams' stall timeout; default `defaultConcurrency`. */
  concurrency?: ConcurrencySettings;
  /**
   * Signs proof-of-work challenges; every process of a deployment needs the same key (the server reads it from
   * CHALLENGE_HMAC_KEY or the data directory). Default: a random key of this app's own.
   */
  challengeHmacKey?: string;
  /**
   * Where respondents reach the service, as configured (PUBLIC_BASE_URL): the start of hosted forms' URLs, and the
   * one origin of the hosted pages' key. Without it, the key allows the origin of the host each request names.
   */
  publicBaseUrl?: string;
  /** Without `publicBaseUrl`, the start of hosted forms' URLs, asked each time (the server's own, once listening). */
  localBaseUrl?: () => string;
  /**
   * Where invitations and sign-in links go (SMTP, or `.eml` files: src/mail/mailer.ts). With it, the app sends queued
   * mail as soon as it is queued and every `mailPollMs` (retries); without it, mail stays queued for a process that has one.
   */
  mailer?: Mailer;
  /** Default 30 s. */
  mailPollMs?: number;
}

export interface App {
  app: Express;
  services: Services;
  /** Writes coalesced `last_used_at` times; call on a timer and before closing the store. */
  flushLastUsed(): Promise<void>;
  /** Adds the API requests counted in memory to the usage figures; call every `USAGE_FLUSH_INTERVAL_MS` and before closing the store. */
  flushUsage(): Promise<void>;
  /** The mail sender, when the app was given a mailer: stop it before closing the store. */
  mail: MailSender | undefined;
  /** Whether `npm run docs` had built the reference docs when the app was built (they are served at /docs). */
  servesDocs: boolean;
}

const distDir = fileURLToPath(new URL('../../dist/', import.meta.url));

export function buildApp(options: AppOptions): App {
  const contract = options.contract ?? loadContract();
  const log = options.logger ?? pino({ level: 'silent' });
  const limits =
    options.rateLimits && 'perKey' in options.rateLimits ? options.rateLimits : memoryRateLimits(options.rateLimits ?? defaultRateLimits);
  const apiRequests = apiRequestMeter(options.store.usage);
  const services: Services = {
    store: options.store,
    now: options.now ?? (() => new Date()),
    events: options.events ?? integrationEvents({ now: options.now }),
    webhookUrls: options.webhookUrls ?? dnsWebhookUrlPolicy(),
    standardRateLimits: { perKeyPerSecond: limits.perKey.points, perWorkspacePerMinute: limits.perWorkspace.points },
    apiRequests,
    searchScan: options.searchScan,
    concurrency: concurrencyLimits(options.concurrency),
    eventSamples: contract.eventSamples,
    challengeSecrets: challengeSecrets(options.challengeHmacKey ?? randomBytes(32).toString('hex')),
    publicBaseUrl: options.publicBaseUrl,
    localBaseUrl: options.localBaseUrl,
  };
  const mail = options.mailer
    ? mailSender(options.store.people, options.mailer, { now: services.now, log, pollIntervalMs: options.mailPollMs ?? 30_000 })
    : undefined;
  services.nudgeMail = mail?.nudge;
  const lastUsed = coalescedLastUsed(options.store.apiKeys);
  const publishableLastUsed = coalescedLastUsed(options.store.publishableKeys);

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  // Paths are case-sensitive, as the pipeline's router matches them; the validator reads this setting for its own
  // route lookup, which must find the same operation (`/submissions/EXPORT` is an id, not the export).
  app.enable('case sensitive routing');
  app.use(inSequence([assignRequestId(), requestLog(log), identifyConnection(options.trustedProxies ?? []), requireHttps()]));

  // The pipeline, in order. Each stage may end the request with a problem; `errorHandler` is the only place
  // that turns one into a response.
  // - Before anything else: the request id (every log line and problem carries it) and the client address and
  //   protocol (which the failed-authentication budget and the HTTPS check need); plain HTTP is refused before
  //   the path is even looked at.
  // - Every limit a request meets is in rate-limits.ts, asked before authentication (public requests' addresses, in
  //   the public stages and the hosted pages) and after it. Rate-limit headers go on every response: the key's
  //   windows once it is admitted, otherwise the address's failed-authentication budget, looked up only for answers
  //   no key's window is reported on (the public documents below, operations without a key, and problems, in
  //   `reportAddressLimitsOnProblem`).
  // - The route comes before authentication, so an unknown path is 404 and a wrong method 405 without a key.
  // - Authentication comes before the other limits: a failure counts against the address's failed-authentication
  //   budget and, past it, is answered 429, but a valid key is never refused for what other clients behind the
  //   same address did. The per-key (per grant for OAuth) and per-workspace limits are counted once the key,
  //   and so its workspace, is known; publishable keys spend the workspace's publishable budget, never its secret
  //   keys'. The token endpoint's rejections are counted by `countFailedAuthentication`, the first error stage.
  // - The scope is checked before the body is read: a key that may not call the operation never gets its body
  //   parsed. Bodies are parsed only for operations that take one, up to 1 MiB, and refused there if they do
  //   not decode or are not text (request-body.ts); a depth bound before the validator keeps its recursion safe.
  // - Numeric parameters are checked as plain decimals before the validator, which coerces `1e309` to Infinity;
  //   their issues are reported with the validator's.
  // - The validator needs the parsed body; it also checks each response against the document on its way out.
  // - Dispatch claims the Idempotency-Key (after validation, so an invalid request does not use up the key)
  //   and calls the handler.
  // Everything is mounted at /v1, the base path the validator reads from the document's server, as one layer
  // (in-sequence.ts); `unknownPath` answers every other path with a problem+json 404.
  // The public operations' own stages (CORS) come first on their paths, so that a browser's preflight, which carries
  // no key, is answered before the API pipeline looks for one.
  const limitPublicAddress = publicAddressLimit(limits);
  app.use('/v1/public', inSequence(publicStages(services, limitPublicAddress)));
  app.use(
    '/v1',
    inSequence([
      deprecationHeaders(options.deprecation ?? null),
      routeOperation(contract),
      authenticateCaller(services, limits, lastUsed, publishableLastUsed),
      requireScope(contract),
      parseBody(),
      checkPlainNumbers(),
      ...openApiValidator(contract.document, { validateResponses: options.validateResponses ?? true }),
      rejectImpreciseNumbers(),
      dispatch(options.handlers ?? defaultHandlers, services),
    ]),
  );
  // The published contract and its docs: public, like the docs site. After the API's mount, so an API request is not
  // tried against their routes first (each route an app passes over costs a match).
  // Serialised when first asked for, once per app: the YAML alone takes 90 to 250 ms, which every app paid at build
  // time (every test's too) whether or not anyone read it.
  let documentJson: string | undefined;
  let documentYaml: string | undefined;
  const addressLimits = reportAddressLimits(limits);
  app.get('/openapi.json', addressLimits, (_req, res) => {
    documentJson ??= JSON.stringify(contract.document);
    res.type('application/json').send(documentJson);
  });
  app.get('/openapi.yaml', addressLimits, (_req, res) => {
    documentYaml ??= stringifyYaml(contract.document, { lineWidth: 0 });
    res.type('application/yaml').send(documentYaml);
  });
  app.use(oauthMetadata(contract, services, addressLimits));
  const servesDocs = existsSync(`${distDir}docs/index.html`);
  if (servesDocs) app.get(['/docs', '/docs/'], addressLimits, (_req, res) => void res.sendFile('docs/index.html', { root: distDir }));
  // The guides' pictures (docs/images/, committed), where the guides' relative links lead from /docs.
  app.use(
    '/docs/images',
    addressLimits,
    express.static(fileURLToPath(new URL('../../docs/images/', import.meta.url)), { fallthrough: true }),
  );

  // Hosted forms' pages and the embed script (hosted-pages.ts): HTML and scripts, not problem+json.
  // A page view is a public request, counted against the address as the page's API calls are.
  const assetsOf = hostedAssetLoader();
  app.use(hostedPages(services, assetsOf, limitPublicAddress, log));
  // Forms' logos (form-logo-files.ts), which the hosted pages show: images under each form's page address.
  app.use(formLogoFiles(services, limitPublicAddress, log));
  // People's pages (people-pages.ts): sign-in, invitations, the account, and the consent page at the contract's
  // authorization URL. HTML as well; their session cookie is read there and nowhere else.
  const oauth = oauthFlow(contract.document);
  app.use(
    peoplePages({ services, assetsOf, limitAddress: limitPublicAddress, log, consentPath: oauth.consentPath, scopeWords: oauth.scopes }),
  );
  // The dashboard (dashboard-page.ts): one page; its data comes from /v1 like any client's.
  app.use(
    dashboardPage({ assetsOf, limitAddress: limitPublicAddress, consentPath: oauth.consentPath, publicBaseUrl: options.publicBaseUrl }),
  );

  app.use(unknownPath);
  app.use(countFailedAuthentication(limits), reportAddressLimitsOnProblem(limits), errorHandler(log), lastResort(log));
  return {
    app,
    services,
    flushLastUsed: () => Promise.all([lastUsed.flush(), publishableLastUsed.flush()]).then(() => undefined),
    flushUsage: () => apiRequests.flush(),
    mail,
    servesDocs,
  };
}
