// Only in the generator's repository: lets the type checker see the templates against the contract's types. The
// generator writes the real file, generated from the bundled contract, into each stub project.
export type * from '../../../../../generated/openapi.js';
