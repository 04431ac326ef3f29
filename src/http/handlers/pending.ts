/**
 * A handler for an operation this server does not implement yet: it answers 500 `internal_error` (the
 * one documented failure that fits). The document, the mock and the client already cover the operation.
 */
import { AppError } from '../../domain/errors.js';
import type { Handler, OperationId } from './types.js';

export const notImplemented = <K extends OperationId>(operationId: K): Handler<K> => async () => {
  throw new AppError({ status: 500, type: 'server_error', code: 'internal_error', message: `${operationId} is not implemented by this server yet.` });
};

