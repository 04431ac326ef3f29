// Headless Debian Chromium for the browser tests and the docs screenshots: never a downloaded browser, so nothing needs a download host.
import type { LaunchOptions } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const chromiumLaunchOptions: LaunchOptions = {
  executablePath: CHROMIUM_PATH,
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
};
