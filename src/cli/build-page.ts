// `npm run build:page`: the hosted page's browser files into dist/hosted/ (src/hosted/build.ts).
import { buildHostedAssets } from '../hosted/build.js';

const manifest = await buildHostedAssets();
process.stdout.write(`Built the hosted page: ${Object.values(manifest).join(', ')}\n`);
