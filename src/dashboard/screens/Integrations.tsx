/** Placeholder until the Integrations screen is built. */
export function IntegrationsScreen() {
  return (
    <section aria-labelledby="integrations-heading">
      <h1 id="integrations-heading">Integrations</h1>
    </section>
  );
}
