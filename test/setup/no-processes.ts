// Setup file of the `unit` project, which starts no process so that it runs in seconds anywhere: every way
// node:child_process starts one throws instead. A test file that needs a process belongs to the `processes`
// project (vitest.config.ts). Patching the CommonJS module object and syncing reaches `import { execFile } from
// 'node:child_process'` as well, whether the importing module loads before or after this file.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  childProcess[name] = () => {
    throw new Error(`the unit project starts no process (child_process.${name}): move this test file to the processes project`);
  };
}
syncBuiltinESMExports();
