/**
 * The pipeline's stages as one Express layer. Every layer of a router costs a path match, a prefix trim and
 * parameter processing on each request, and the stages under /v1 apply to every request alike; walking them
 * here keeps their order and Express 5's error handling (a throw, a rejected promise or `next(error)` ends the
 * sequence with that error) without paying the router once per stage.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export function inSequence(stages: readonly RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => new Walk(stages, req, res, done).next();
}

/**
 * One request's way through the stages. A class rather than a closure made per request: the server runs under
 * tsx, whose esbuild transform keeps function names by calling `Object.defineProperty` on every named closure
 * when it is created, which cost more than the walk itself.
 */
class Walk {
  private index = 0;
  readonly next: NextFunction;

  constructor(
    private readonly stages: readonly RequestHandler[],
    private readonly req: Request,
    private readonly res: Response,
    private readonly done: NextFunction,
  ) {
    this.next = this.step.bind(this);
  }

  private step(error?: unknown): void {
    // Any truthy value is an error (or Express's 'route'/'router'), for the router to handle as before.
    if (error) {
      this.done(error);
      return;
    }
    const stage = this.stages[this.index++];
    if (!stage) {
      this.done();
      return;
    }
    try {
      const returned: unknown = stage(this.req, this.res, this.next);
      if (returned instanceof Promise)
        returned.then(undefined, (rejection: unknown) => this.done(rejection || new Error('Rejected promise')));
    } catch (thrown) {
      this.done(thrown);
    }
  }
}
