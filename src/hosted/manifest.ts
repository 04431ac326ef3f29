/**
 * Where the browser files go and how the server finds them: shared by the build and the server. The hosted form page's
 * and the people pages' (sign-in, account, consent) are built together and served by the same route.
 */
export const hostedAssetsDir = 'dist/hosted';
export const manifestFile = 'manifest.json';

/** Logical name → file name with its content hash. */
export interface HostedAssetManifest {
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
}

/** What a hosted page's script reads from its `<main>` element (no inline script under the page's CSP). */
export interface HostedPageData {
  formId: string;
  /** The publishable key of the service's hosted pages (src/domain/hosting/pages.ts). */
  key: string;
  /** The public operations' base, on the page's own origin. */
  api: string;
  worker: string;
}
