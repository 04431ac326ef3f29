/**
 * The contract's types, generated from the OpenAPI document (`npm run generate`). Server code names
 * schemas through `Schema<'Form'>` instead of restating them, so a change to the document is a
 * compile error wherever it matters.
 */
import type { components, operations } from '../generated/openapi.js';

export type Schemas = components['schemas'];
export type Schema<Name extends keyof Schemas> = Schemas[Name];
export type { components, operations };

export type Environment = Schema<'Environment'>;
export type Scope = Schema<'Scope'>;
export type Plan = Schema<'Plan'>;
export type ErrorCode = Schema<'ErrorCode'>;
export type ErrorType = Schema<'ErrorType'>;
export type ValidationIssue = Schema<'ValidationIssue'>;
/** What an API key (or OAuth grant) is attached to: the whole workspace, one folder or one form. */
export type Attachment = Schema<'ApiKeyAttachment'>;
