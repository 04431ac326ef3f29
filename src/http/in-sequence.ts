/**
 * The pipeline's stages as one Express layer. Every layer of a router costs a path match, a prefix trim and
 * parameter processing on each request, and the stages under /v1 apply to every request alike; walking them
 * here keeps their order and Express 5's error handling (a throw, a rejected promise or `next(error)` ends the
 * sequence with that error) without paying the router once per stage.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export function inSequence(stages: readonly RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    const next = (error?: unknown): void => {
      // Any truthy value is an error (or Express's 'route'/'router'), for the router to handle as before.
      if (error) {
        done(error);
        return;
      }
      const stage = stages[index++];
      if (!stage) {
        done();
        return;
      }
      try {
        const returned: unknown = stage(req, res, next);
        if (returned instanceof Promise) returned.then(undefined, (rejection: unknown) => done(rejection || new Error('Rejected promise')));
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}
