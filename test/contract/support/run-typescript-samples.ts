/**
 * Runs TypeScript code samples in one process (`node --import tsx`), as a partner would run each with `npx tsx`, so
 * that the client is compiled once for all of them. Started by test/contract/code-samples.test.ts:
 *
 *   run <controlUrl> <results.json> <sample.mts>…   imports the samples one after another, each in its own folder
 *                                                   (where a sample that uploads a file finds it); before each, names
 *                                                   it to the recording proxy (POST <controlUrl>/<name>); writes
 *                                                   [{ name, error }] (error null when the sample ran to its end)
 *   serve <sample.mts>=<port>…                      imports webhook receiver samples, each with PORT set to its
 *                                                   port, and keeps listening until stopped
 */
import { writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { pathToFileURL } from 'node:url';

const [mode, ...rest] = process.argv.slice(2);
const sampleName = (file: string) => basename(file, '.mts');

if (mode === 'run') {
  const [controlUrl, resultsFile, ...files] = rest;
  const results: Array<{ name: string; error: string | null }> = [];
  for (const file of files) {
    const name = sampleName(file);
    await fetch(`${controlUrl}/${encodeURIComponent(name)}`, { method: 'POST' });
    process.chdir(dirname(file));
    try {
      await import(pathToFileURL(file).href);
      results.push({ name, error: null });
    } catch (error) {
      results.push({ name, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  }
  writeFileSync(resultsFile!, JSON.stringify(results));
} else if (mode === 'serve') {
  for (const argument of rest) {
    const [file, port] = argument.split('=') as [string, string];
    // Each receiver reads PORT when it is imported: the import is synchronous up to `listen`.
    process.env.PORT = port;
    await import(pathToFileURL(file).href);
  }
  console.log('listening');
} else {
  throw new Error(`usage: run-typescript-samples.ts run|serve …, not ${mode}`);
}
