/**
 * What a member without the admin scope sees instead of an admin-only screen (the contract's `admin` operations:
 * keys, team, usage, audit log), rather than the API's 403: the screen is not for their role.
 */
export function AdminOnly(props: { what: string }) {
  return <p class="notice admin-only">Only admins can see {props.what}. Ask an admin of this workspace if you need a change here.</p>;
}
