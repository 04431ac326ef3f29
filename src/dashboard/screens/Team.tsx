/** Placeholder until the Team screen is built. */
export function TeamScreen() {
  return (
    <section aria-labelledby="team-heading">
      <h1 id="team-heading">Team</h1>
    </section>
  );
}
