// The browser tests' Chromium: the one the docs screenshots use too (src/chromium.ts).
import { type Browser, chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../../src/chromium.js';

export { CHROMIUM_PATH, chromiumLaunchOptions } from '../../src/chromium.js';

let shared: Promise<Browser> | undefined;

/**
 * Headless Chromium that resolves localhost to the loopback address the test servers listen on (WebAuthn and the
 * dashboard want a name, not an IP address), one per test worker. `api` and `api-postgres` run a worker's files in
 * one module graph (vitest.config.ts), so the browser the first file launched serves the next ones: a launch costs
 * about a second of a core. Each file works in contexts of its own (cookies, storage, permissions and virtual
 * authenticators are a context's) and closes them, never the browser, which Playwright ends with the worker.
 */
export function sharedChromium(): Promise<Browser> {
  if (!shared) {
    const launched = chromium.launch({
      ...chromiumLaunchOptions,
      args: [...chromiumLaunchOptions.args!, '--host-resolver-rules=MAP localhost 127.0.0.1'],
    });
    shared = launched;
    const forget = () => {
      if (shared === launched) shared = undefined;
    };
    launched.then((browser) => browser.on('disconnected', forget), forget);
  }
  return shared;
}
