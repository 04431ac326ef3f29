/** Placeholder until the Analytics screen is built. */
export function AnalyticsScreen() {
  return (
    <section aria-labelledby="analytics-heading">
      <h1 id="analytics-heading">Analytics</h1>
    </section>
  );
}
