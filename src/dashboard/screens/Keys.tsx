/** Placeholder until the Keys screen is built. */
export function KeysScreen() {
  return (
    <section aria-labelledby="keys-heading">
      <h1 id="keys-heading">Keys</h1>
    </section>
  );
}
