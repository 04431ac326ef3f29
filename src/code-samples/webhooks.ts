// The code samples of an event under `webhooks`: a receiver that verifies `X-Service-Signature` with the typed client,
// and a curl command that sends the event's example to it, signed as the service signs deliveries, to test it.
import { type CodeSample, type Json, type Operation, requestExample } from './document.js';
import { shellQuote } from './shell.js';

export const WEBHOOK_SECRET_VARIABLE = 'FORM_FUNNEL_WEBHOOK_SECRET';
export const WEBHOOK_URL_VARIABLE = 'FORM_FUNNEL_WEBHOOK_URL';
/** Where the receiver listens unless `PORT` says otherwise, and where the test delivery goes unless told. */
const RECEIVER_URL = 'http://localhost:3000';

export function webhookCodeSamples(document: Json, eventType: string, operation: Operation): CodeSample[] {
  const example = requestExample(document, operation);
  if (!example) throw new Error(`webhook ${eventType} has no example to build a code sample from`);
  return [
    { lang: 'TypeScript', label: 'TypeScript receiver', source: receiver(eventType) },
    { lang: 'Shell', label: 'curl (signed test delivery)', source: signedDelivery(eventType, example.value as Json) },
  ];
}

function receiver(eventType: string): string {
  return [
    "import { createServer } from 'node:http';",
    "import { verifyWebhookSignature, WebhookSignatureError } from '@form-funnel/client';",
    '',
    '// The integration’s signing secret (whsec_…), shown when the integration was created or its secret rotated.',
    `const secret = process.env.${WEBHOOK_SECRET_VARIABLE}!;`,
    '',
    'createServer((req, res) => {',
    '  const chunks: Buffer[] = [];',
    "  req.on('data', (chunk: Buffer) => chunks.push(chunk));",
    "  req.on('end', () => {",
    '    try {',
    '      // The raw bytes as received: a body parsed and serialised again no longer matches its signature.',
    "      const event = verifyWebhookSignature(Buffer.concat(chunks), req.headers['x-service-signature'], secret);",
    '      // A retried delivery has the same event.id (X-Service-Event-Id): handle each event once.',
    `      if (event.type === '${eventType}') console.log(event.id, event.data.object);`,
    '      res.writeHead(204).end();',
    '    } catch (error) {',
    '      if (!(error instanceof WebhookSignatureError)) throw error;',
    '      res.writeHead(400).end(error.reason);',
    '    }',
    '  });',
    `}).listen(Number(process.env.PORT) || ${new URL(RECEIVER_URL).port});`,
  ].join('\n');
}

function signedDelivery(eventType: string, event: Json): string {
  const hmac = `openssl dgst -sha256 -hmac "$${WEBHOOK_SECRET_VARIABLE}"`;
  return [
    '# Sends this event’s example to your receiver, signed with your secret as the service signs deliveries.',
    `body=${shellQuote(JSON.stringify(event))}`,
    't=$(date +%s)',
    `v1=$(printf '%s.%s' "$t" "$body" | ${hmac} | sed 's/^.* //')`,
    [
      `curl -sS --fail-with-body -X POST "\${${WEBHOOK_URL_VARIABLE}:-${RECEIVER_URL}}"`,
      `-H 'Content-Type: application/json'`,
      '-H "X-Service-Signature: t=$t,v1=$v1"',
      `-H ${shellQuote(`X-Service-Event-Id: ${String(event.id)}`)}`,
      `-H ${shellQuote(`X-Service-Event-Type: ${eventType}`)}`,
      '-d "$body"',
    ].join(' \\\n  '),
  ].join('\n');
}
