// Only in the generator's repository, so that the templates type-check here: the generator writes the real map,
// one import per operation, into each stub project.
import type { Handlers } from '../handler-types.js';

export const handlers = {} as Handlers;
