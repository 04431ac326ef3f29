/**
 * Where the browser files go and how the server finds them: shared by the build and the server. The hosted form page's
 * and the people pages' (sign-in, account, consent) are built together and served by the same route.
 */
import type { LoadedLanguage } from './languages.js';

export const hostedAssetsDir = 'dist/hosted';
export const manifestFile = 'manifest.json';

/** The logical name of a language's message catalogue for the hosted page (English is in `page.js`). */
export type CatalogueAsset = `messages-${LoadedLanguage}.js`;
export const catalogueAsset = (language: LoadedLanguage): CatalogueAsset => `messages-${language}.js`;

/** Logical name → file name with its content hash. */
export type HostedAssetManifest = Record<CatalogueAsset, string> & {
  'page.js': string;
  'page.css': string;
  'worker.js': string;
  'embed.js': string;
  /** The people pages' script (passkeys) and stylesheet: sign-in, invitation, account and consent pages. */
  'people.js': string;
  'people.css': string;
  /** The dashboard (src/dashboard/): one script and one stylesheet, served at `/dashboard`. */
  'dashboard.js': string;
  'dashboard.css': string;
};

/** What a hosted page's script reads from its `<main>` element (no inline script under the page's CSP). */
export interface HostedPageData {
  formId: string;
  /** The publishable key of the service's hosted pages (src/domain/hosting/pages.ts). */
  key: string;
  /** The public operations' base, on the page's own origin. */
  api: string;
  worker: string;
}
