/**
 * The README's "Ten minutes with the API", run as a newcomer runs it: the server started with the settings its
 * first block names (after a first start that made the certificate), then every other shell block pasted in
 * order into one bash session, whose `PORT` and `RECEIVER_PORT` are free ports, as a reader whose 8443 and 9443
 * are taken sets them. Only the data directory is changed in the text (a temporary one instead of `data/`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { variables } from '../../src/config.js';
import { portBecomes } from '../support/ports.js';
import { freePort, type ServerProcess, singleProcessOnSqlite, startServerProcess } from './support/server-process.js';

const root = new URL('../../', import.meta.url).pathname;
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const section = /^## Ten minutes with the API\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
const serverBlock = blocks.find((block) => /\bnpm start\s*$/.test(block)) ?? '';
const shellBlocks = blocks.filter((block) => block !== serverBlock);

/** Resolves once something accepts connections on the port: a reader pastes the next block seconds later. */
async function listening(port: number): Promise<void> {
  if (!(await portBecomes(port, true, 10_000, 'localhost'))) throw new Error(`nothing listens on ${port}`);
}

/** The `NAME=value` settings written before `npm start`. */
const settingsOf = (command: string): Record<string, string> =>
  Object.fromEntries([...command.matchAll(/\b([A-Z][A-Z0-9_]*)=(\S+)/g)].map((match) => [match[1]!, match[2]!]));

describe('the README walkthrough', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'readme-walkthrough-'));
  let server: ServerProcess | undefined;
  let shell: ChildProcess | undefined;
  let output = '';
  let receiverPort = 0;

  /** Pastes a block into the session and waits for its commands to have run. */
  const paste = async (block: string, index: number): Promise<string> => {
    const marker = `::block ${index} done::`;
    const before = output.length;
    const pasted = block.replaceAll('data/tls-', `${dataDir}/tls-`);
    shell!.stdin!.write(`${pasted}\necho '${marker}'\n`);
    for (const started = Date.now(); !output.includes(marker, before); await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (Date.now() - started > 20_000) throw new Error(`block ${index} did not finish:\n${output.slice(before)}`);
    }
    // The receiver prints from the background whenever a delivery arrives: its lines are not the block's.
    return output
      .slice(before, output.indexOf(marker, before))
      .split('\n')
      .filter((line) => !line.startsWith('receiver: '))
      .join('\n');
  };

  beforeAll(async () => {
    // The first start makes the certificate that the walkthrough's server then trusts.
    const first = await startServerProcess(singleProcessOnSqlite, { dataDir });
    await first.stop();
    const settings = settingsOf(serverBlock);
    const env = Object.fromEntries(Object.entries(settings).map(([name, value]) => [name, value.replace(/^data\//, `${dataDir}/`)]));
    server = await startServerProcess(singleProcessOnSqlite, { env, dataDir });
    receiverPort = await freePort();
    // Its own process group, so that the receiver it starts in the background ends with it.
    shell = spawn('bash', ['--noprofile', '--norc'], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(server.port), RECEIVER_PORT: String(receiverPort) },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    shell.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    shell.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  }, 60_000);

  afterAll(async () => {
    if (shell?.pid && shell.exitCode === null && shell.signalCode === null) {
      const exited = new Promise((resolve) => shell!.once('exit', resolve));
      process.kill(-shell.pid, 'SIGKILL');
      await exited;
    }
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when it is read, then it starts the server for local webhooks and has the shell blocks of each step', () => {
    expect(settingsOf(serverBlock)).toEqual({
      ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
      WEBHOOK_RETRY_BASE_MS: '1000',
      NODE_EXTRA_CA_CERTS: 'data/tls-cert.pem',
    });
    expect(shellBlocks).toHaveLength(6);
    // What the run below replaces must be there to replace.
    expect(section).toContain('fs.readFileSync("data/tls-cert.pem")');
  });

  it('when it names a port, then it reads PORT or RECEIVER_PORT and shows the default, the server’s own for PORT', () => {
    const commands = shellBlocks.join('\n');
    const serverDefault = variables.find((variable) => variable.name === 'PORT')?.default;
    expect(commands).toContain(`BASE=https://localhost:\${PORT:-${serverDefault}}/v1`);
    expect(commands).toContain(`RECEIVER_PORT=\${RECEIVER_PORT:-9443}`);
    // Every other mention of a port is one of the two variables: no number a reader would have to edit.
    const literalPorts = [
      ...commands.replaceAll(/\$\{(PORT|RECEIVER_PORT):-\d+\}/g, '').matchAll(/\b(8443|9443|localhost:\d+|listen\(\d+)/g),
    ];
    expect(literalPorts.map((match) => match[0])).toEqual([]);
  });

  it('when its blocks are pasted in order, then the form is created, the lead graded, found, exported and delivered', async () => {
    const [account, form, integration, submissions, leads, deliveries] = shellBlocks;
    expect(await paste(account!, 1)).toBe('Acme admin\n');
    expect(await paste(form!, 2)).toMatch(/^form form_[0-9A-Za-z]{24}\n$/);
    expect(await paste(integration!, 3)).toMatch(/^integration int_[0-9A-Za-z]{24}, receiver \d+\n$/);
    await listening(receiverPort);

    const graded = await paste(submissions!, 4);
    const [completed, small] = graded.trim().split('\n');
    const lead = /^(sub_[0-9A-Za-z]{24}) completed 70 A$/.exec(completed!)?.[1];
    expect(lead, graded).toBeDefined();
    expect(small).toMatch(/^sub_[0-9A-Za-z]{24} completed 0 C \[ 'contact' \]$/);
    // The README says the receiver prints each delivery within a second or two: wait as a reader would.
    for (const started = Date.now(); (output.match(/^receiver: /gm) ?? []).length < 2 && Date.now() - started < 15_000; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(output).toContain(`receiver: submission.completed ${lead} score 70 grade A, signature verified`);
    expect(output).toMatch(/receiver: submission\.completed sub_\w+ score 0 grade C, signature verified/);

    const found = (await paste(leads!, 5)).split('\n');
    expect(found[0]).toBe(`${lead} ana@acme.example 70 A`);
    expect(found[1]).toMatch(
      /^id,form_id,form_version,created_at,updated_at,completed_at,status,test,score,grade,.*,email,company_size,budget_usd\r$/,
    );
    expect(found.filter((line) => line.startsWith('sub_'))).toHaveLength(3);
    expect(found.find((line) => line.startsWith(`${lead},`))).toMatch(/,completed,false,70,A,.*,ana@acme\.example,large,60000\r$/);

    expect((await paste(deliveries!, 6)).trim().split('\n')).toEqual([
      'submission.completed attempt 1 succeeded 204',
      'submission.completed attempt 1 succeeded 204',
    ]);
    expect(output).not.toMatch(/error:|REJECTED|command not found/);
  });
});
