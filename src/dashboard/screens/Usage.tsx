import { unwrap } from '../api.js';
import { AdminOnly } from '../components/AdminOnly.js';
import { Loading } from '../components/Loading.js';
import { ProblemNotice } from '../components/ProblemNotice.js';
import { RateLimitList } from '../components/RateLimitList.js';
import { UsageMeters } from '../components/UsageMeters.js';
import { api, isAdmin } from '../state.js';
import { useResource } from '../use-resource.js';

/** The workspace's live usage this month and last (`GET /usage`, admins only), its plan and its rate limits. */
export function UsageScreen() {
  return (
    <section aria-labelledby="usage-heading">
      <h1 id="usage-heading">Usage</h1>
      {isAdmin() ? <Usage /> : <AdminOnly what="the workspace's usage" />}
    </section>
  );
}

function Usage() {
  const usage = useResource(async () => unwrap(await api().GET('/usage')), 'usage');
  return (
    <>
      <ProblemNotice error={usage.error} onRetry={usage.reload} />
      {usage.loading && !usage.data && <Loading what="usage" />}
      {usage.data && (
        <>
          <p>
            Plan: <strong class="plan">{usage.data.plan}</strong>. Only live mode is counted; test keys, test submissions and test
            deliveries never are.
          </p>
          <section aria-labelledby="usage-months-heading">
            <h2 id="usage-months-heading">This month and last</h2>
            <UsageMeters usage={usage.data} />
          </section>
          <section aria-labelledby="rate-limits-heading">
            <h2 id="rate-limits-heading">Rate limits</h2>
            <RateLimitList limits={usage.data.rate_limits} />
          </section>
        </>
      )}
    </>
  );
}
