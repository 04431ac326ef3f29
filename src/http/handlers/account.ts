import { describeCaller, listAuditEvents as listAudit, resetTestData as reset } from '../../domain/account.js';
import { getUsage as usageOf } from '../../domain/usage/service.js';
import { defaultRateLimits } from '../documented-limits.js';
import { listBody, pageOf } from './pagination.js';
import type { Handler } from './types.js';

export const getMe: Handler<'getMe'> = async ({ services, principal }) => ({
  status: 200,
  body: await describeCaller(services, principal),
});

export const listAuditEvents: Handler<'listAuditEvents'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(listAudit(services, principal, { type: query.type }, pageOf(query))),
});

export const resetTestData: Handler<'resetTestData'> = async ({ services, principal }) => ({
  status: 200,
  body: { object: 'test_data_reset', deleted: await reset(services, principal) },
});

export const getUsage: Handler<'getUsage'> = async ({ services, principal }) => ({
  status: 200,
  body: await usageOf(services, principal, services.standardRateLimits ?? defaultRateLimits),
});
