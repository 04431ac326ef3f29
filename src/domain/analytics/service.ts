/**
 * Funnel analytics of one form, per environment: live keys see live submissions, test keys the sandbox's.
 * Only aggregates are read (see the store), so the cost does not grow with the number of submissions.
 */
import type { Schema } from '../../contract.js';
import type { Principal } from '../access.js';
import { findVisibleForm } from '../forms/service.js';
import type { Services } from '../services.js';
import { resolveDayRange, utcDayOf } from './date-range.js';
import { funnelFigures, TOP_UTM_SOURCES } from './funnel-figures.js';

export interface AnalyticsQuery {
  formId: string;
  from?: string | undefined;
  to?: string | undefined;
}

export async function getAnalytics(services: Services, principal: Principal, query: AnalyticsQuery): Promise<Schema<'Analytics'>> {
  const { form } = await findVisibleForm(services, principal, query.formId);
  const range = resolveDayRange(query, utcDayOf(services.now()));
  const spam = services.store.spam.spamCount(form.id, principal.environment, range.from, range.to);
  const totals = await services.store.submissions.funnel({
    formId: form.id,
    environment: principal.environment,
    from: range.from,
    to: range.to,
    topSources: TOP_UTM_SOURCES,
  });
  return {
    object: 'analytics',
    form_id: form.id,
    from: range.from,
    to: range.to,
    test: principal.environment === 'test',
    ...funnelFigures(form, totals, range),
    spam: await spam,
  };
}
