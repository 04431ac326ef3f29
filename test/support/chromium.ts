// The browser tests' Chromium: the one the docs screenshots use too (src/chromium.ts).
export { CHROMIUM_PATH, chromiumLaunchOptions } from '../../src/chromium.js';
