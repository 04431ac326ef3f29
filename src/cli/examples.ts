// The document's examples, recorded from the reference server (src/examples/):
//
//   npm run examples:record   runs the story against a fresh server and writes every answer into its example file
//   npm run examples:check    runs it again and fails when an example file differs from what the server answers
//
// Both read the bundled document (dist/openapi.json) the server validates with; the npm scripts bundle first.
import { exampleText, readExample, writeExample } from '../examples/document-files.js';
import { examplesDrift, recordExamples } from '../examples/record.js';

const mode = process.argv[2];
if (mode !== 'record' && mode !== 'check') {
  process.stderr.write('usage: examples.ts record|check\n');
  process.exit(2);
}

const recording = await recordExamples();
const { changed, unaccounted } = examplesDrift(recording);
if (mode === 'record') {
  const written = [...recording.examples].filter(([file, value]) => writeExample(file, value)).map(([file]) => `\n  openapi/${file}`);
  process.stdout.write(`Recorded ${recording.examples.size} examples; ${written.length} files written${written.join('')}\n`);
} else {
  for (const file of changed) {
    process.stderr.write(`openapi/${file} differs from the server's answer; it would read:\n`);
    process.stderr.write(exampleText({ ...readExample(file), value: recording.examples.get(file) }));
  }
  if (changed.length > 0)
    process.stderr.write('The examples drifted from the server: run npm run examples:record and commit the result.\n');
}
for (const label of unaccounted) {
  process.stderr.write(`${label}: a success example the story neither records nor lists as an exception (src/examples/story.ts)\n`);
}
if ((mode === 'check' && changed.length > 0) || unaccounted.length > 0) process.exitCode = 1;
