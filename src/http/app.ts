/**
 * The Express application: the contract's pipeline in order, the handlers, and the published document
 * and docs. It does not listen; `src/server.ts` does, so tests can drive the same app in-process.
 */

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import pino, { type Logger } from 'pino';
import { dnsWebhookUrlPolicy } from '../adapters/dns-resolver.js';
import type { EventPublisher } from '../domain/events.js';
import { integrationEvents } from '../domain/integrations/publisher.js';
import type { WebhookUrlPolicy } from '../domain/integrations/webhook-url.js';
import { coalescedLastUsed } from '../domain/keys/last-used.js';
import type { Services } from '../domain/services.js';
import type { Store } from '../store/types.js';
import { type Contract, loadContract } from './contract-document.js';
import { dispatch } from './dispatch.js';
import { errorHandler, unknownPath } from './error-handler.js';
import { handlers as defaultHandlers } from './handlers/index.js';
import type { Handlers } from './handlers/types.js';
import {
  assignRequestId,
  authenticateCaller,
  deprecationHeaders,
  identifyConnection,
  parseBody,
  reportAddressLimits,
  requireHttps,
  requireScope,
  routeOperation,
} from './pipeline.js';
import { memoryRateLimits, type RateLimitPolicy, type RateLimitSettings } from './rate-limits.js';
import { requestLog } from './request-log.js';
import { openApiValidator } from './validation.js';

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
}

export interface App {
  app: Express;
  services: Services;
  /** Writes coalesced `last_used_at` times; call on a timer and before closing the store. */
  flushLastUsed(): Promise<void>;
}

const distDir = fileURLToPath(new URL('../../dist/', import.meta.url));
const defaultLimits: RateLimitSettings = { perKeyPerSecond: 100, perWorkspacePerMinute: 10_000, failedAuthPerAddressPerMinute: 30 };

export function buildApp(options: AppOptions): App {
  const contract = options.contract ?? loadContract();
  const log = options.logger ?? pino({ level: 'silent' });
  const services: Services = {
    store: options.store,
    now: options.now ?? (() => new Date()),
    events: options.events ?? integrationEvents(options.store, { now: options.now }),
    webhookUrls: options.webhookUrls ?? dnsWebhookUrlPolicy(),
  };
  const limits =
    options.rateLimits && 'perKey' in options.rateLimits ? options.rateLimits : memoryRateLimits(options.rateLimits ?? defaultLimits);
  const lastUsed = coalescedLastUsed(options.store.apiKeys);

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(
    assignRequestId(),
    requestLog(log),
    identifyConnection(options.trustedProxies ?? []),
    reportAddressLimits(limits),
    requireHttps(),
  );

  // The published contract and its docs: public, like the docs site.
  app.get('/openapi.json', (_req, res) => void res.sendFile('openapi.json', { root: distDir }));
  app.get('/openapi.yaml', (_req, res) => void res.type('application/yaml').sendFile('openapi.yaml', { root: distDir }));
  if (existsSync(`${distDir}docs/index.html`))
    app.get(['/docs', '/docs/'], (_req, res) => void res.sendFile('docs/index.html', { root: distDir }));

  const v1 = express.Router();
  v1.use(
    deprecationHeaders(options.deprecation ?? null),
    routeOperation(contract),
    authenticateCaller(services, limits, lastUsed),
    requireScope(contract),
    parseBody(),
  );
  app.use('/v1', v1);
  app.use(openApiValidator(contract.document, { validateResponses: options.validateResponses ?? true }));
  app.use('/v1', dispatch(options.handlers ?? defaultHandlers, services));
  app.use(unknownPath);
  app.use(errorHandler(log));
  return { app, services, flushLastUsed: () => lastUsed.flush() };
}
