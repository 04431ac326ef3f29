/**
 * The outbox a use case gives its change (see src/store/outbox.ts): the events the change causes and, when the
 * caller is answering a request with an Idempotency-Key, the response for what the use case returns. Both are
 * decided from the store's result inside the change's transaction, so they commit with it or not at all.
 */
import type { Outbox } from '../store/outbox.js';
import type { DomainEvent } from './events.js';
import type { Services } from './services.js';

export interface ChangeEffects {
  events?: readonly DomainEvent[];
  /** Exactly what the use case returns: the caller's response is built from it. */
  returns: unknown;
}

/** `effects` answers undefined when the store made no change (its result says why): nothing is recorded with it. */
export function outboxOf<R>(services: Services, effects: (result: R) => ChangeEffects | undefined): Outbox<R> {
  return (result) => {
    const effect = effects(result);
    if (effect === undefined) return {};
    return {
      events: (effect.events ?? []).flatMap((event) => services.events.outboxEvent(event) ?? []),
      response: services.idempotentResponse?.(effect.returns),
    };
  };
}
