/**
 * The request and response classes a server gives an Express app: Node's own, made with the app's prototypes.
 *
 * Express gives every request and response its app's prototypes (`app.request`, `app.response`, which hold
 * `req.get`, `res.json` and the rest) with `Object.setPrototypeOf`, as each one enters the app. V8 then keeps no
 * shared hidden class for the object: every property added to it afterwards (`req.params`, `res.locals`, the
 * router's, the validator's, the pipeline's) copies the object's whole hidden class, about 2 us each on a request,
 * which has 30 properties. Made with these classes, the objects already have the app's prototypes, so Express's
 * `setPrototypeOf` changes nothing (setting the prototype an object already has is a no-op) and property additions
 * follow shared transitions, as on any object built by a constructor.
 * (expressjs/express#5998 proposes the same for Express itself.)
 *
 * What the app sees is unchanged: the same prototypes, whose chains still reach Node's `IncomingMessage` and
 * `ServerResponse`, built by Node's own constructors. An app mounted inside another still gets its own prototypes
 * from Express on the way in, and the outer app's back on the way out.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/** For `http.createServer` and `https.createServer`'s options; nothing for a listener that is not an Express app. */
export function messageClassesOf(app: unknown): Partial<MessageClasses> {
  if (!isExpressApp(app)) return {};
  return {
    IncomingMessage: withPrototype(IncomingMessage, app.request),
    ServerResponse: withPrototype(ServerResponse, app.response),
  };
}

const isExpressApp = (app: unknown): app is Express =>
  typeof app === 'function' &&
  (app as Partial<Express>).request instanceof IncomingMessage &&
  (app as Partial<Express>).response instanceof ServerResponse;

/**
 * Node's constructor under another prototype. A function rather than a class: a class's `prototype` cannot be
 * replaced, and one that extends Node's would put its own prototype between the object and the app's.
 */
function withPrototype<C extends typeof IncomingMessage | typeof ServerResponse>(base: C, prototype: InstanceType<C>): C {
  // Node's message constructors are plain functions (it calls them with `new`), which apply to `this` as any
  // pre-class constructor does.
  const construct = base as unknown as (this: unknown, ...args: unknown[]) => void;
  function Message(this: unknown, ...args: unknown[]) {
    construct.apply(this, args);
  }
  Message.prototype = prototype;
  return Message as unknown as C;
}
