/** Placeholder until the Leads screen is built. */
export function LeadsScreen() {
  return (
    <section aria-labelledby="leads-heading">
      <h1 id="leads-heading">Leads</h1>
    </section>
  );
}
