/**
 * One server per SQLite file (src/store/sqlite/server-lease.ts): a second server on the file is refused at start,
 * wherever it runs, while the admin command keeps working beside the running server.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/domain/keys/secret.js';
import { openStore } from '../../src/store/open.js';
import { ServerLeaseHeld } from '../../src/store/sqlite/server-lease.js';
import type { Store } from '../../src/store/types.js';

const root = join(import.meta.dirname, '../..');
const run = promisify(execFile);
const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

const location = () => ({ databaseUrl: null, dataDir: mkdtempSync(join(tmpdir(), 'server-lease-')) });
const serve = async (where: ReturnType<typeof location>) => {
  const store = await openStore(where);
  opened.push(store);
  return store;
};

/** A second process that opens the directory's store as the server does, says so, and keeps it until killed. */
function serverProcess(dataDir: string) {
  const source = `const { openStore } = await import(${JSON.stringify(new URL('../../src/store/open.ts', import.meta.url).href)});
    await openStore({ databaseUrl: null, dataDir: ${JSON.stringify(dataDir)} });
    console.log('serving');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { cwd: root });
  const serving = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('serving') && resolve());
    child.once('exit', (code) => reject(new Error(`the server process exited with ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, serving, exited };
}

describe('the SQLite server lease', () => {
  it('when a server store is open on a file, then a second one in the same process is refused, naming the file', async () => {
    const where = location();
    const first = await serve(where);
    const refused = openStore(where);
    await expect(refused).rejects.toBeInstanceOf(ServerLeaseHeld);
    await expect(refused).rejects.toThrow(join(where.dataDir, 'form-funnel.db'));
    // Refused before it opened anything: the first store goes on as before.
    expect(await first.workspaces.get('ws_none')).toBeUndefined();
  });

  it('when the serving store is closed, then the next server takes the file', async () => {
    const where = location();
    await (await openStore(where)).close();
    await expect(serve(where)).resolves.toBeDefined();
  });

  it('when another process serves the file, then this one is refused; once that process is killed, the lease is free', async () => {
    const where = location();
    const other = serverProcess(where.dataDir);
    await other.serving;
    await expect(openStore(where)).rejects.toBeInstanceOf(ServerLeaseHeld);
    // A crash leaves no lease behind: the operating system drops the lock with the process.
    other.child.kill('SIGKILL');
    await other.exited;
    await expect(serve(where)).resolves.toBeDefined();
  });

  it('when the server runs, then `npm run admin -- bootstrap` still works, and the server finds its key at once', async () => {
    const where = location();
    const server = await serve(where);
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'src/cli/admin.ts', 'bootstrap', '--workspace', 'Beside', '--plan', 'pro', '--json'],
      { cwd: root, env: { ...process.env, DATA_DIR: where.dataDir, DATABASE_URL: '' } },
    );
    const { live_admin_key: key, workspace_id: workspaceId } = JSON.parse(stdout) as { live_admin_key: string; workspace_id: string };
    // Read through the server's row cache, which must see the other process's commit.
    const found = await server.apiKeys.findBySecretHash(hashSecret(key));
    expect(found?.workspaceId).toBe(workspaceId);
    expect(found?.workspace.name).toBe('Beside');
  });
});
