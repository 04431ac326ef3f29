/**
 * What the delivery worker needs from the network, as interfaces: the worker decides what to send and where,
 * an adapter outside the domain (`src/adapters/webhook-transport.ts`) opens the connections, and tests pass
 * their own.
 */
import type { ResolvedAddress } from './webhook-url.js';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The addresses the URL check approved: the connection goes to one of them and nowhere else. */
  addresses: readonly ResolvedAddress[];
  timeoutMs: number;
}

export interface WebhookResponse {
  status: number;
}

/** Sends one request; rejects when no answer came (a `DeliveryFailure` says why in words fit for the log). */
export type WebhookTransport = (request: WebhookRequest) => Promise<WebhookResponse>;

/**
 * A request that got no answer, with the integration log's `error` text. The text is chosen by the transport from
 * what it knows (an error code), never copied from a library's message, which might quote headers or internals.
 */
export class DeliveryFailure extends Error {
  override readonly name = 'DeliveryFailure';
}
