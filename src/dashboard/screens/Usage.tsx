import { unwrap } from '../api.js';
import { Loading } from '../components/Loading.js';
import { ProblemNotice } from '../components/ProblemNotice.js';
import { api } from '../state.js';
import { useResource } from '../use-resource.js';

/** The workspace's usage this period against its plan's limits (`GET /usage`). */
export function UsageScreen() {
  const usage = useResource(async () => unwrap(await api().GET('/usage')), 'usage');
  return (
    <section aria-labelledby="usage-heading">
      <h1 id="usage-heading">Usage</h1>
      <ProblemNotice error={usage.error} onRetry={usage.reload} />
      {usage.loading && !usage.data && <Loading what="usage" />}
      {usage.data && <pre class="raw">{JSON.stringify(usage.data, null, 2)}</pre>}
    </section>
  );
}
