/** What a conformance run knows: the keys it was given, and what it has learnt and made so far. */

export interface Keys {
  main: string;
  read?: string;
  otherWorkspace?: string;
}

/**
 * A consent's authorization code, from the consent page or the operator's `npm run admin -- oauth-authorize`, with what
 * its exchange needs: the client and the redirect URI it was issued for, and the PKCE verifier of its challenge.
 */
export interface OAuthAuthorization {
  code: string;
  codeVerifier: string;
  clientId: string;
  redirectUri: string;
  /** A confidential client's secret, sent as `client_secret`. */
  clientSecret?: string | undefined;
}

/** What no API operation makes, handed to the run by whoever runs it. */
export interface Given {
  /** A member of the `--key` workspace (not its only admin) that the run may remove. */
  member?: string | undefined;
  authorization?: OAuthAuthorization | undefined;
}

/** What the run makes and then uses by id. */
export type Resource =
  | 'form'
  | 'transferForm'
  | 'folder'
  | 'replayedFolder'
  | 'submission'
  | 'partial'
  | 'integration'
  | 'event'
  | 'apiKey'
  | 'publishableKey'
  | 'doomedPublishableKey'
  | 'publicSubmission'
  | 'invite'
  | 'rescoreJob'
  | 'transfer';

/** What the run has learnt and made so far. */
export interface World {
  keys: Keys;
  given: Given;
  /** Ends the unique values (slugs, emails, names) of what this run makes. */
  suffix: string;
  webhookUrl?: string;
  me?: { scope: string; environment: string; workspaceId: string };
  other?: { scope: string; workspaceId: string };
  ids: Partial<Record<Resource, string>>;
  /**
   * Resources the run could not make because the operation meant to make them failed (not: is not implemented),
   * and that operation: what needs them is not run (`whenMade` in steps.ts).
   */
  unmade: Partial<Record<Resource, string>>;
  /** A key the run revoked, to show that it no longer opens anything. */
  revokedKey?: string;
  /** The publishable key the run made and uses for the public operations, with the origin it allows. */
  publishable?: { key: string; origin: string };
  /** A publishable key the run revoked, to show that the public operations refuse it. */
  revokedPublishableKey?: string;
  /** A key of the run's own, spent on reaching the rate limit. */
  spareKey?: string;
}
