/**
 * The pipeline's stages walked as one Express layer (src/http/in-sequence.ts): the order and Express 5's error
 * handling are those of the stages mounted one by one.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { inSequence } from '../src/http/in-sequence.js';

const req = {} as Request;
const res = {} as Response;

/** Runs the stages as one layer; resolves with what the layer passed to Express's `next`. */
function run(stages: RequestHandler[]): Promise<unknown[]> {
  return new Promise((resolve) => {
    const done: NextFunction = (...args: unknown[]) => resolve(args);
    inSequence(stages)(req, res, done);
  });
}

describe('inSequence', () => {
  it('when every stage calls next, then they run in order, each once, and the layer passes on with no error', async () => {
    const ran: number[] = [];
    const stage =
      (index: number): RequestHandler =>
      (_req, _res, next) => {
        ran.push(index);
        next();
      };
    expect(await run([stage(1), stage(2), stage(3)])).toEqual([]);
    expect(ran).toEqual([1, 2, 3]);
  });

  it('when a stage calls next with an error, throws, or returns a rejected promise, then the stages after it do not run', async () => {
    const failure = new Error('refused');
    const failing: RequestHandler[] = [
      (_req, _res, next) => next(failure),
      () => {
        throw failure;
      },
      async () => {
        throw failure;
      },
    ];
    for (const fail of failing) {
      let after = false;
      const outcome = await run([
        fail,
        () => {
          after = true;
        },
      ]);
      expect(outcome).toEqual([failure]);
      expect(after).toBe(false);
    }
  });

  it("when a stage passes 'route' or a promise rejects with nothing, then Express gets 'route' or an error, as a mounted stage would", async () => {
    expect(await run([(_req, _res, next) => next('route')])).toEqual(['route']);
    const [rejection] = await run([() => Promise.reject(undefined)]);
    expect(rejection).toBeInstanceOf(Error);
  });

  it('when a stage answers without calling next, then the layer ends there and Express is not called', async () => {
    let passedOn = false;
    inSequence([() => {}])(req, res, () => {
      passedOn = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(passedOn).toBe(false);
  });
});
