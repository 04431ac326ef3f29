import type { Store } from '../store/types.js';
import type { EventPublisher } from './events.js';

/** What domain operations depend on; tests pass their own clock and store. */
export interface Services {
  store: Store;
  now(): Date;
  events: EventPublisher;
}

export const timestamp = (services: Services): string => services.now().toISOString();
