import type { Store } from '../store/types.js';
import type { EventPublisher } from './events.js';
import type { WebhookUrlPolicy } from './integrations/webhook-url.js';

/** What domain operations depend on; tests pass their own clock, store and resolver. */
export interface Services {
  store: Store;
  now(): Date;
  events: EventPublisher;
  /** Which webhook URLs are accepted (on create and update, and again before every delivery) and how hosts resolve. */
  webhookUrls: WebhookUrlPolicy;
}

export const timestamp = (services: Pick<Services, 'now'>): string => services.now().toISOString();
