// Only in the generator's repository, so that the templates type-check here: the generator writes the real list,
// read from the contract's security requirements, into each stub project.
export type OpenOperation = never;
