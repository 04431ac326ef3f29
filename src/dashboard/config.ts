/**
 * What the server tells the dashboard, in data attributes of its root element (no inline script under the page's
 * policy): where the API and the consent page are, and the dashboard's OAuth client id.
 */
export interface DashboardConfig {
  /** The API's base on this origin (`/v1`). */
  api: string;
  /** The consent page (the contract's `authorizationUrl`, on this origin). */
  authorize: string;
  clientId: string;
  /** The people pages: the account (passkeys, workspaces) and sign-out. */
  account: string;
  signOut: string;
  /** The hosted page's stylesheet, which the builder's preview uses. */
  previewStylesheet: string;
}

export function readConfig(root: HTMLElement): DashboardConfig {
  const value = (name: string): string => {
    const found = root.dataset[name];
    if (found === undefined) throw new Error(`The dashboard's page has no data-${name}`);
    return found;
  };
  return {
    api: new URL(value('api'), location.origin).toString().replace(/\/$/, ''),
    authorize: value('authorize'),
    clientId: value('clientId'),
    account: value('account'),
    signOut: value('signOut'),
    previewStylesheet: value('previewStylesheet'),
  };
}
