/**
 * The conformance kit: runs every phase against one server and returns a result per operation. The phases run in
 * the order the resources need (made before they are refused, refused before they are deleted).
 */

import * as administration from './administration.js';
import { problemSummary } from './checks.js';
import { type ConformanceContract, loadConformanceContract } from './contract.js';
import { newRunSuffix } from './examples.js';
import { type HttpClient, httpClient } from './http.js';
import * as lifecycle from './lifecycle.js';
import * as oauth from './oauth.js';
import * as refusals from './refusals.js';
import * as respondents from './respondents.js';
import { createSession, type OperationResult } from './session.js';
import type { Given, Keys, World } from './world.js';

export interface ConformanceOptions {
  /** The server's base URL, the `/v1` included: `https://localhost:8443/v1`. */
  baseUrl: string;
  keys: Keys;
  /** A member to remove and an authorization code to exchange: the happy paths no API operation can set up. */
  given?: Given;
  /** An https URL the server accepts for a webhook; by default the example's, which a server that resolves it refuses. */
  webhookUrl?: string;
  /** Accept a self-signed certificate. */
  insecure?: boolean;
  /** Run only these operations' results in the report (every phase still runs, for their prerequisites). */
  only?: readonly string[];
  /** The bundled document to check against; by default the one `npm run bundle` writes. */
  contractPath?: string;
  contract?: ConformanceContract;
  timeoutMs?: number;
}

export interface ConformanceReport {
  baseUrl: string;
  summary: Record<OperationResult['outcome'], number>;
  /** What the run could not check, and why (a key that was not given). */
  notes: string[];
  operations: OperationResult[];
}

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const contract = options.contract ?? (await loadConformanceContract(options.contractPath));
  const unknown = (options.only ?? []).filter(
    (operationId) => !contract.operations.some((operation) => operation.operationId === operationId),
  );
  if (unknown.length > 0) throw new Error(`The contract has no operation ${unknown.join(', ')}.`);
  const client = httpClient({ baseUrl: options.baseUrl, insecure: options.insecure ?? false, timeoutMs: options.timeoutMs ?? 15_000 });
  const session = createSession(contract, client, options.keys.main);
  const world: World = {
    keys: { ...options.keys },
    given: { ...options.given },
    suffix: newRunSuffix(),
    webhookUrl: options.webhookUrl,
    ids: {},
    unmade: {},
  };
  try {
    await assertKeysAccepted(client, options.baseUrl, options.keys);
    await lifecycle.identify(session, world);
    await lifecycle.folders(session, world);
    await lifecycle.forms(session, world);
    await lifecycle.submissions(session, world);
    await lifecycle.integrations(session, world);
    await administration.apiKeys(session, world);
    await respondents.publishableKeys(session, world);
    await administration.team(session, world);
    await administration.transfers(session, world);
    await oauth.tokens(session, world);
    // Before the failed authentications, which the server may limit per address, since the token endpoint's
    // refusal of a spent code counts as one.
    await refusals.negativeData(session, world);
    await refusals.unsupportedMethods(session, world);
    await refusals.authentication(session, world);
    await refusals.scopes(session, world);
    await refusals.isolation(session, world);
    await lifecycle.tearDown(session, world);
    await refusals.rateLimit(session, world);
  } finally {
    client.close();
  }
  const operations = session.results().filter((result) => !options.only?.length || options.only.includes(result.operationId));
  const summary = { pass: 0, fail: 0, not_implemented: 0, skipped: 0 };
  for (const result of operations) summary[result.outcome] += 1;
  return { baseUrl: options.baseUrl, summary, notes: session.runNotes, operations };
}

/**
 * Asks GET /me with each key given before anything else. A server that cannot be reached, or that refuses a key,
 * gives no report worth reading: every operation would fail the same way (a wrong --key made all of them fail).
 * A stub's 501 is an answer: the key was not refused.
 */
async function assertKeysAccepted(client: HttpClient, baseUrl: string, keys: Keys): Promise<void> {
  const given: Array<[option: string, key: string | undefined, purpose: string]> = [
    ['--key', keys.main, 'a key of the workspace the run works in, best an admin key'],
    ['--key-read', keys.read, 'a read key of the same workspace'],
    ['--key-other-workspace', keys.otherWorkspace, 'a key of a second workspace'],
  ];
  for (const [option, key, purpose] of given) {
    if (key === undefined) continue;
    const answer = await client.send({ method: 'GET', path: '/me', headers: { authorization: `Bearer ${key}` } }).catch((error: Error) => {
      throw new Error(`${baseUrl} cannot be reached: ${error.message}`);
    });
    if (answer.status === 401 || answer.status === 403) {
      throw new Error(
        `the key was refused: GET /me with ${option} answered ${answer.status}${problemSummary(answer)}. Pass a key this server issued (for ${option}, ${purpose}).`,
      );
    }
  }
}

/**
 * 0: every operation passed (skipped ones aside); 1: at least one failed; 2: none failed, but at least one is not
 * implemented yet, which is not a pass.
 */
export function exitCodeOf(report: ConformanceReport): 0 | 1 | 2 {
  if (report.summary.fail > 0) return 1;
  return report.summary.not_implemented > 0 ? 2 : 0;
}
