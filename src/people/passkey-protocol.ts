/**
 * What the people pages' script (src/hosted/page/people.ts) and the server say to each other about passkeys: four
 * JSON endpoints, two per ceremony, all POST from the page's own origin (`credentials: 'same-origin'`).
 *
 *   sign-in   POST /sign-in/passkey/options   {}                          → 200 SignInOptions
 *             POST /sign-in/passkey           SignInVerification          → 200 PasskeyDone
 *   register  POST /account/passkeys/options  {}                          → 200 RegistrationOptions
 *             POST /account/passkeys          RegistrationVerification    → 200 PasskeyDone
 *
 * Any refusal is a 4xx (or 5xx) with a JSON `PasskeyProblem`, whose message the page shows as it is: written for the
 * person at the keyboard, never a code. The challenge lives on the server (a one-time token): the options carry it,
 * the verification spends it. Type-only apart from the paths, so the browser bundle takes nothing of the server's.
 */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

/** The two ceremonies a page's button starts (`data-passkey="sign-in"` or `"register"`). */
export type PasskeyCeremony = 'sign-in' | 'register';

/** Where each ceremony's two requests go. */
export const passkeyEndpoints = {
  'sign-in': { options: '/sign-in/passkey/options', verify: '/sign-in/passkey' },
  register: { options: '/account/passkeys/options', verify: '/account/passkeys' },
} as const satisfies Record<PasskeyCeremony, { options: string; verify: string }>;

/** The body of both options requests: nothing yet (the server knows who is signed in from the session). */
export type PasskeyOptionsRequest = Record<string, never>;

/** `POST /sign-in/passkey/options` → the options for `startAuthentication` (no account named: discoverable). */
export interface SignInOptions {
  options: PublicKeyCredentialRequestOptionsJSON;
}

/** `POST /sign-in/passkey`: the authenticator's answer and the local path to go to after (the sign-in page's `next`). */
export interface SignInVerification {
  response: AuthenticationResponseJSON;
  next?: string;
}

/** `POST /account/passkeys/options` → the creation options for `startRegistration`, for the signed-in account. */
export interface RegistrationOptions {
  options: PublicKeyCredentialCreationOptionsJSON;
}

/** `POST /account/passkeys`: the new credential and, when the person typed one, its name. */
export interface RegistrationVerification {
  response: RegistrationResponseJSON;
  name?: string;
}

/** A ceremony's success: where the page goes next (a local path: the script refuses another origin). */
export interface PasskeyDone {
  redirect: string;
}

/** A refusal's body, with a 4xx status (or 5xx): one sentence for the person. */
export interface PasskeyProblem {
  message: string;
}
