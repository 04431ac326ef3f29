/**
 * The app as the benchmarks build it: rate-limit ceilings no load here reaches (the figures measure the pipeline,
 * not 429s), a silent log unless one is given, and the bundled document when `npm run bundle` has written it,
 * otherwise bundled here as the server does, so a fresh checkout runs the benchmarks too.
 */
import pino from 'pino';
import { type App, type AppOptions, buildApp } from '../../src/http/app.js';
import { loadOrBundleContract } from '../../src/http/contract-document.js';

export const highLimits = { perKeyPerSecond: 1_000_000, perWorkspacePerMinute: 100_000_000, failedAuthPerAddressPerMinute: 1_000_000 };

export async function benchApp(options: Omit<AppOptions, 'contract' | 'rateLimits'>): Promise<App> {
  return buildApp({ logger: pino({ level: 'silent' }), ...options, contract: await loadOrBundleContract(), rateLimits: highLimits });
}
