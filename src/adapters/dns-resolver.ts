/** Host name resolution for the webhook URL check (`WebhookUrlPolicy.resolveHost`), by the system resolver. */
import { lookup } from 'node:dns/promises';
import type { ResolvedAddress, WebhookUrlPolicy } from '../domain/integrations/webhook-url.js';

export const resolveWithDns = async (hostname: string): Promise<ResolvedAddress[]> =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/** The operator's policy: public addresses only, unless ALLOW_PRIVATE_WEBHOOK_URLS opens private ones for local testing. */
export const dnsWebhookUrlPolicy = (allowPrivateAddresses = false): WebhookUrlPolicy => ({
  allowPrivateAddresses,
  resolveHost: resolveWithDns,
});
