import type { Response } from 'express';
import type { ValidationIssue } from '../contract.js';
import type { Principal } from '../domain/access.js';
import type { Operation } from './contract-document.js';

/** What the pipeline learns about a request, stage by stage. */
export interface RequestState {
  requestId: string;
  clientIp: string;
  /** Whether the request came over TLS (directly, or as a trusted proxy says). */
  secure: boolean;
  operation?: Operation;
  pathParams?: Record<string, string>;
  principal?: Principal;
  /** Parameter issues found before the schema validator; reported together with its own. */
  parameterIssues?: ValidationIssue[];
}

export const stateOf = (res: Response): RequestState => res.locals as RequestState;
