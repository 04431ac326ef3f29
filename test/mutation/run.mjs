// Starts StrykerJS through its API. Its command line refuses Node 20 (StrykerJS 10 declares Node >= 22), while
// the mutation run itself works on the Node 20 this project supports; once the project runs on Node 22, the
// scripts can call `stryker run <config>` directly.
//   node test/mutation/run.mjs <config> [--incremental] [--force] [--mutate <glob,glob>] [--concurrency <n>]
import { parseArgs } from 'node:util';
// The package exports only its command-line entry, which checks the Node version as it loads.
import { Stryker } from '../../node_modules/@stryker-mutator/core/dist/src/stryker.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    incremental: { type: 'boolean' },
    force: { type: 'boolean' },
    mutate: { type: 'string' },
    concurrency: { type: 'string' },
  },
});
const [configFile] = positionals;
if (!configFile) {
  console.error('usage: node test/mutation/run.mjs <stryker config> [--incremental] [--force] [--mutate <glob,glob>]');
  process.exit(2);
}

const options = { configFile };
if (values.incremental) options.incremental = true;
if (values.force) options.force = true;
if (values.mutate) options.mutate = values.mutate.split(',');
if (values.concurrency) options.concurrency = Number(values.concurrency);

try {
  await new Stryker(options).runMutationTest();
} catch {
  // Stryker has logged the reason (a failing first run, a broken threshold).
  process.exitCode = 1;
}
