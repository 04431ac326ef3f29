/** Placeholder until the Forms screen is built. */
export function FormsScreen() {
  return (
    <section aria-labelledby="forms-heading">
      <h1 id="forms-heading">Forms</h1>
    </section>
  );
}
