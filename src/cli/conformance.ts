/**
 * `npm run conformance -- --base-url URL --key KEY [--key-read KEY] [--key-other-workspace KEY] …` (see `usage`):
 * checks a running server against the contract (docs/implementing.md, "Check your server"). Exit code: 0 every
 * operation passed, 1 one failed, 2 none failed but some are not implemented, 3 the run itself could not be made
 * (bad options, no server, a key the server refused).
 */
import { parseArgs } from 'node:util';
import { formatReport } from '../conformance/report.js';
import { exitCodeOf, runConformance } from '../conformance/run.js';

const usage = `Usage:
  npm run conformance -- --base-url <url> --key <key> [--key-read <key>] [--key-other-workspace <key>]
                         [--webhook-url <url>] [--member <mem_id>] [--oauth-code <code> --oauth-code-verifier <verifier>
                         --oauth-client-id <client_id> --oauth-redirect-uri <uri> [--oauth-client-secret <secret>]]
                         [--insecure] [--only <operationId,…>] [--contract <openapi.json>] [--json]

  --base-url             the server's base URL, /v1 included (https://localhost:8443/v1)
  --key                  a key of the workspace the run works in; an admin key checks the most (the run makes
                         the API keys and publishable keys it needs)
  --key-read             a read key of that workspace (made by the run when --key is an admin key)
  --key-other-workspace  a key of a second workspace: isolation, and the receiving side of transfers
  --webhook-url          an https URL the server accepts for a webhook (default: the example's, which does not resolve)
  --member               a member of the --key workspace, not its only admin, that the run removes (removeMember)
  --oauth-code           an authorization code of a consent, not yet exchanged (the consent page's, or
                         npm run admin -- oauth-authorize): the run exchanges it, refreshes, and revokes the grant
  --oauth-code-verifier  the PKCE code_verifier whose S256 challenge the consent was given
  --oauth-client-id      the client the code was issued to
  --oauth-redirect-uri   the redirect URI the code was issued for
  --oauth-client-secret  the client's secret, for a confidential client
  --insecure             accept a self-signed certificate (or trust it: NODE_EXTRA_CA_CERTS=<cert.pem>)
  --only                 report only these operations (every phase still runs, for prerequisites)
  --contract             the bundled document to check against (default: dist/openapi.json, built from openapi/)
  --json                 the report as JSON, for CI

Exit code: 0 all passed, 1 a failure, 2 no failure but some operations not implemented, 3 could not run
(bad options, no server, a key the server refused on GET /me). An operation whose prerequisite failed is
skipped, "not run because <prerequisite> failed", rather than failed again.
`;

async function main(): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        'base-url': { type: 'string' },
        key: { type: 'string' },
        'key-read': { type: 'string' },
        'key-other-workspace': { type: 'string' },
        'webhook-url': { type: 'string' },
        member: { type: 'string' },
        'oauth-code': { type: 'string' },
        'oauth-code-verifier': { type: 'string' },
        'oauth-client-id': { type: 'string' },
        'oauth-redirect-uri': { type: 'string' },
        'oauth-client-secret': { type: 'string' },
        insecure: { type: 'boolean', default: false },
        only: { type: 'string' },
        contract: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}`);
    return 3;
  }
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const baseUrl = values['base-url'] as string | undefined;
  const key = values.key as string | undefined;
  if (!baseUrl || !key) {
    process.stderr.write(`--base-url and --key are required.\n\n${usage}`);
    return 3;
  }
  const code = values['oauth-code'] as string | undefined;
  const exchange = ['oauth-code-verifier', 'oauth-client-id', 'oauth-redirect-uri'] as const;
  const missing = exchange.filter((name) => values[name] === undefined);
  if (code !== undefined && missing.length > 0) {
    process.stderr.write(`--oauth-code needs ${missing.map((name) => `--${name}`).join(', ')} too.\n\n${usage}`);
    return 3;
  }
  try {
    const report = await runConformance({
      baseUrl,
      keys: {
        main: key,
        read: values['key-read'] as string | undefined,
        otherWorkspace: values['key-other-workspace'] as string | undefined,
      },
      webhookUrl: values['webhook-url'] as string | undefined,
      given: {
        member: values.member as string | undefined,
        authorization:
          code === undefined
            ? undefined
            : {
                code,
                codeVerifier: values['oauth-code-verifier'] as string,
                clientId: values['oauth-client-id'] as string,
                redirectUri: values['oauth-redirect-uri'] as string,
                clientSecret: values['oauth-client-secret'] as string | undefined,
              },
      },
      insecure: values.insecure === true,
      only: (values.only as string | undefined)
        ?.split(',')
        .map((name) => name.trim())
        .filter(Boolean),
      contractPath: values.contract as string | undefined,
    });
    process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
    return exitCodeOf(report);
  } catch (error) {
    process.stderr.write(`The conformance run could not be made: ${(error as Error).message}\n`);
    return 3;
  }
}

process.exitCode = await main();
