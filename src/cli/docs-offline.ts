// Makes the docs page (`npm run docs`) request nothing from the network: `redocly build-docs --inlineBundle`
// inlines Redoc's script, but Redoc still loads its "API docs by Redocly" logo from a CDN at run time (no
// option turns it off). The logo's URLs become an inline SVG wordmark, so the attribution stays and the page
// renders identically offline. The guides' pictures (`docs/images/…`, relative to the guide's file) become data URIs
// for the same reason: the page is one file that shows everything wherever it is opened.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(import.meta.dirname, '../..');
const page = path.join(root, 'dist/docs/index.html');

const logoUrl = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
const wordmark = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="16" viewBox="0 0 64 16">' +
    '<text x="0" y="12" font-family="sans-serif" font-size="12" fill="currentColor">Redocly</text></svg>',
)}`;

/** A guide's picture as Redoc keeps it in the page's state: `src=\"../../docs/images/name.png\"`. */
const guideImage = /(?<=src=\\")(?:\.\.\/)+(docs\/images\/[\w./-]+\.png)(?=\\")/g;

export function withoutNetworkAssets(html: string, readImage = (file: string) => readFileSync(path.join(root, file))): string {
  const replaced = html.replace(logoUrl, wordmark);
  if (replaced === html)
    throw new Error('the docs page no longer loads the Redocly logo from cdn.redoc.ly: review src/cli/docs-offline.ts');
  return replaced.replace(guideImage, (_match, file: string) => `data:image/png;base64,${readImage(file).toString('base64')}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(page, withoutNetworkAssets(readFileSync(page, 'utf8')));
  console.log(`${path.relative(root, page)}: the Redocly logo is inlined; the page requests nothing from the network.`);
}
