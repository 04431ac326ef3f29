/**
 * Builds the browser files with esbuild: the hosted page's script, its proof-of-work worker, the embed script and
 * stylesheet, the people pages' passkey script and stylesheet (src/http/people-views.ts) and the dashboard's
 * (src/dashboard/, served by src/http/dashboard-page.ts), each minified and named
 * by its content's hash, and a manifest the server reads (src/http/hosted-assets.ts). The page script imports the same
 * logic and answer checks the server runs (src/domain/logic, src/domain/submissions): a rule changed there changes
 * both after the next build. The page's message catalogues other than English are a script each, built first, so that
 * the page script can carry their hashed names (page/i18n/load.ts) and a page loads only its form's language.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { loadedLanguages } from './languages.js';
import { catalogueAsset, type HostedAssetManifest, hostedAssetsDir, manifestFile } from './manifest.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pageDir = path.join(root, 'src/hosted/page');

/**
 * Each file is built on its own: only the page script names a global (`FormFunnelPage`, its rules, which the agreement
 * test reads, and each catalogue, `FormFunnelCatalogue`, which the page reads); the embed script runs in customers'
 * pages and must add nothing to their globals.
 */
type Entry = { name: keyof HostedAssetManifest; source: string; globalName?: string };

const catalogueEntries: Entry[] = loadedLanguages.map((language) => ({
  name: catalogueAsset(language),
  source: `i18n/${language}.ts`,
  globalName: 'FormFunnelCatalogue',
}));

const entries = [
  { name: 'page.js', source: 'main.ts', globalName: 'FormFunnelPage' },
  { name: 'worker.js', source: 'pow-worker.ts' },
  { name: 'embed.js', source: 'embed.ts' },
  { name: 'page.css', source: 'page.css' },
  { name: 'people.js', source: 'people.ts' },
  { name: 'people.css', source: 'people.css' },
  { name: 'dashboard.js', source: '../../dashboard/main.tsx' },
  { name: 'dashboard.css', source: '../../dashboard/dashboard.css' },
] as const satisfies readonly Entry[];

export async function buildHostedAssets(outDir = path.join(root, hostedAssetsDir)): Promise<HostedAssetManifest> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const buildAll = (list: readonly Entry[], define: Record<string, string> = {}) =>
    Promise.all(
      list.map(async (entry) => {
        const result = await build({
          entryPoints: { [entry.name.replace(/\.(js|css)$/, '')]: path.join(pageDir, entry.source) },
          outdir: outDir,
          entryNames: '[name].[hash]',
          bundle: true,
          minify: true,
          format: 'iife',
          globalName: 'globalName' in entry ? entry.globalName : undefined,
          target: ['chrome110', 'firefox110', 'safari16'],
          platform: 'browser',
          metafile: true,
          legalComments: 'none',
          // The dashboard's components (Preact's JSX runtime); the other entries have no JSX.
          jsx: 'automatic',
          jsxImportSource: 'preact',
          logLevel: 'silent',
          define,
        });
        const [file] = Object.keys(result.metafile.outputs);
        if (!file) throw new Error(`esbuild wrote nothing for ${entry.source}`);
        return [entry.name, path.basename(file)] as const;
      }),
    );
  const catalogues = await buildAll(catalogueEntries);
  // Promise.all keeps the order: the files are the languages'.
  const catalogueFiles = Object.fromEntries(loadedLanguages.map((language, index) => [language, catalogues[index]![1]]));
  const built = await buildAll(entries, { FORM_FUNNEL_CATALOGUE_FILES: JSON.stringify(catalogueFiles) });
  const manifest = Object.fromEntries([...catalogues, ...built]) as unknown as HostedAssetManifest;
  writeFileSync(path.join(outDir, manifestFile), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
