/**
 * The hosted page's static files, as `npm run build:page` left them in dist/hosted/ (src/hosted/build.ts): each named
 * by its content's hash, so they can be cached for a year, and a manifest from their logical names to those files.
 * Read once, on the first page served; a server started before the build finds them on a later request.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type HostedAssetManifest, hostedAssetsDir, manifestFile } from '../hosted/manifest.js';

export interface HostedAssets {
  /** The hashed file name of each logical asset (`page.js`, `page.css`, `worker.js`, `embed.js`). */
  manifest: HostedAssetManifest;
  /** The bytes of each hashed file. */
  files: ReadonlyMap<string, Buffer>;
}

const root = fileURLToPath(new URL('../../', import.meta.url));

export function hostedAssetLoader(dir = `${root}${hostedAssetsDir}`): () => HostedAssets | undefined {
  let loaded: HostedAssets | undefined;
  return () => {
    if (loaded || !existsSync(`${dir}/${manifestFile}`)) return loaded;
    const manifest = JSON.parse(readFileSync(`${dir}/${manifestFile}`, 'utf8')) as HostedAssetManifest;
    const files = new Map(Object.values(manifest).map((name) => [name, readFileSync(`${dir}/${name}`)]));
    loaded = { manifest, files };
    return loaded;
  };
}
