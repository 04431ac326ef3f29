import * as analytics from '../../domain/analytics/service.js';
import type { Handler } from './types.js';

export const getAnalytics: Handler<'getAnalytics'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await analytics.getAnalytics(services, principal, { formId: query.form_id, from: query.from, to: query.to }),
});
