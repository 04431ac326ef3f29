/**
 * The request and response classes a server gives an Express app: Node's own, made with the app's prototypes.
 *
 * Express gives every request and response its app's prototypes (`app.request`, `app.response`, which hold
 * `req.get`, `res.json` and the rest) with `Object.setPrototypeOf`, as each one enters the app. After that, V8
 * gives each request and response hidden classes of its own: every property added to it later (by Express, the
 * router, the validator and the pipeline: a dozen or more per request) costs far more than on an object whose
 * hidden class others share (docs/internals/message-classes.md has the figures), and the code that reads them
 * (Express, Node's http, the pipeline) meets new hidden classes on every request, so its inline caches stop
 * helping. Made with these classes, the objects already have the app's prototypes when Express sees them: its
 * `setPrototypeOf` changes nothing (setting the prototype an object already has is a no-op), and every request
 * shares the hidden classes of the one before, as objects built by one constructor do. (expressjs/express#5998
 * proposes the same for Express itself.)
 *
 * What the app sees is unchanged: the same prototypes, whose chains still reach Node's `IncomingMessage` and
 * `ServerResponse`, set up by Node's own constructors. An app mounted inside another still gets its own prototypes
 * from Express on the way in, and the outer app's back on the way out; there, Express's `setPrototypeOf` still
 * happens.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/**
 * For `http.createServer` and `https.createServer`'s options. Nothing (Node's own classes) for a listener that is
 * not an Express app, or where Node's constructors cannot be applied to an object they did not allocate.
 */
export function messageClassesOf(app: unknown): Partial<MessageClasses> {
  if (!isExpressApp(app) || !isPlainConstructor(IncomingMessage) || !isPlainConstructor(ServerResponse)) return {};
  return {
    IncomingMessage: withPrototype(IncomingMessage, app.request, 'AppRequest'),
    ServerResponse: withPrototype(ServerResponse, app.response, 'AppResponse'),
  };
}

const isExpressApp = (app: unknown): app is Express =>
  typeof app === 'function' &&
  (app as Partial<Express>).request instanceof IncomingMessage &&
  (app as Partial<Express>).response instanceof ServerResponse;

/**
 * Whether a constructor is a plain function (as Node's message constructors are up to now), which runs on any
 * `this`. A class cannot be called on an object it did not allocate; `Reflect.construct` could build one with
 * another prototype, but cost more per request than it saves, so a Node whose constructors are classes gets its
 * own classes and Express's `setPrototypeOf`, as any Express app does. A bound function (which has no `prototype`
 * and ignores the `this` it is applied to) is not one either.
 */
export const isPlainConstructor = (base: unknown): boolean =>
  typeof base === 'function' && Object.hasOwn(base, 'prototype') && !Function.prototype.toString.call(base).startsWith('class');

/**
 * Node's constructor under another prototype. A function rather than a class: a class's `prototype` cannot be
 * replaced, and one that extends Node's would put its own prototype between the object and the app's.
 */
function withPrototype<C extends typeof IncomingMessage | typeof ServerResponse>(base: C, prototype: InstanceType<C>, name: string): C {
  const construct = base as unknown as (this: unknown, ...args: unknown[]) => void;
  function Message(this: unknown, ...args: unknown[]) {
    construct.apply(this, args);
  }
  // Named for profiles and heap snapshots (`req.constructor` still reads Node's, through the prototype chain).
  Object.defineProperty(Message, 'name', { value: name });
  Message.prototype = prototype;
  return Message as unknown as C;
}
