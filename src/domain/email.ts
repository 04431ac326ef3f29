/**
 * The contract's `format: email` (schema Email), as the API's validator checks it: ajv-formats' full email format
 * (src/http/validation.ts sets `mode: 'full'`), at most 254 characters. Paths that store an address without passing
 * the validator (the admin CLI's bootstrap, the account page's invitation) check it here, so that nothing can store an
 * address the API would then refuse to answer with.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';

const emailFormat = fullFormats.email as RegExp;

export const maxEmailLength = 254;

export const isEmail = (value: string): boolean => value.length <= maxEmailLength && emailFormat.test(value);
