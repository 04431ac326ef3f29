/** Placeholder until the Audit screen is built. */
export function AuditScreen() {
  return (
    <section aria-labelledby="audit-heading">
      <h1 id="audit-heading">Audit</h1>
    </section>
  );
}
