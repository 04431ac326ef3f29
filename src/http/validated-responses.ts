/**
 * Response validation without checking the same answer twice. Reads repeat: a form renderer fetches the same
 * form version, a dashboard polls the same page. Checking a body against its schema costs far more than
 * serialising it (a form's field `oneOf`s, a page of a hundred submissions), and the outcome depends only on the
 * schema and the bytes. So the serialised body of each successful read that passed the validator is remembered
 * under its operation, status and media type; the same bytes are sent again without asking the validator.
 *
 * Nothing is served from here: every response is built and serialised afresh, and only the knowledge "these
 * bytes passed" is kept, so a changed record can never be answered stale. A body the validator refused is never
 * remembered: it becomes a 500 every time. Only `request_id` differs between two answers of the same read; it is
 * left out of the remembered text and written in afterwards, and every id comes from the same generator as the
 * one that passed (`RequestId`'s pattern).
 */
import type { RequestHandler, Response } from 'express';
import { bodyTextWithRequestId, composedText, holdsFrozenRecords } from './frozen-bodies.js';
import { stateOf } from './locals.js';

/** How much serialised text is remembered at most (characters); the oldest entries go first. */
const maxRememberedChars = 16 * 1024 * 1024;
/** Bodies larger than this are checked every time rather than crowding out the rest. */
const maxBodyChars = 1024 * 1024;
/** Stands in for the request id in the remembered text, which then ends with `idStandInJson`. */
const idStandIn = 'req';
const idStandInJson = `"request_id":"${idStandIn}"}`;

/** The body's text with the stand-in for its request id. */
function textWithStandIn(body: object): string {
  const copy = { ...body, request_id: idStandIn };
  return (holdsFrozenRecords(body) ? composedText(copy) : undefined) ?? JSON.stringify(copy);
}

export function rememberValidatedReads(): RequestHandler {
  // Keyed by the serialised body itself: V8 hashes a flat string (as JSON.stringify returns it) where it lies, where
  // a key built by prefixing it would first be copied whole (a page's joined text is flattened once, to be hashed
  // and sent). The value says what it passed as (the operation, status and media type); the same bytes passed as
  // something else are not a match.
  const passed = new Map<string, string>();
  let rememberedChars = 0;
  const remember = (text: string, context: string) => {
    if (text.length > maxBodyChars || passed.get(text) === context) return;
    if (!passed.has(text)) {
      while (rememberedChars + text.length > maxRememberedChars && passed.size > 0) {
        const oldest = passed.keys().next().value!;
        passed.delete(oldest);
        rememberedChars -= oldest.length;
      }
      rememberedChars += text.length;
    }
    passed.set(text, context);
  };

  return (req, res, next) => {
    const operation = stateOf(res).operation;
    if (operation?.operationId === 'eraseSubmissions') {
      // The remembered texts of reads made before an erasure can hold the person's answers: they must not outlive
      // the data, even unserved. Forgotten once the erasure has answered (it has committed then).
      res.once('finish', () => {
        if (res.statusCode === 200) {
          passed.clear();
          rememberedChars = 0;
        }
      });
      return next();
    }
    if (req.method !== 'GET' || !operation) return next();
    // Installed after the validator's response hook: `validated` checks the body, then sends it.
    const validated = res.json.bind(res);
    res.json = function sendValidatedRead(this: Response, body: unknown) {
      const requestId = (body as { request_id?: unknown } | null)?.request_id;
      if (res.statusCode < 200 || res.statusCode >= 300 || typeof requestId !== 'string') {
        return validated(body);
      }
      // A body made from a record the store shares (frozen) has its text computed once, and a page of such records
      // is the join of their texts: frozen-bodies.ts.
      const text = bodyTextWithRequestId(body, idStandIn) ?? textWithStandIn(body as object);
      // The last key, as dispatch appends it: then the text's end is the top-level request_id, never data.
      if (!text.endsWith(idStandInJson)) return validated(body);
      const context = `${operation.operationId} ${res.statusCode} ${res.get('Content-Type') ?? ''}`;
      if (passed.get(text) === context) {
        if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
        return res.send(`${text.slice(0, -idStandInJson.length)}"request_id":${JSON.stringify(requestId)}}`);
      }
      const status = res.statusCode;
      const sent = validated(body);
      // A passed body is sent there and then; a refused one is handed to the error handler, which answers 500
      // now or later, but never with this status.
      if (res.headersSent && res.statusCode === status) remember(text, context);
      return sent;
    };
    next();
  };
}
