/** Exactly `Bearer`, one space, the credential, nothing after it: no trailing whitespace or newline, as the `apiKey` scheme says. */
const bearer = /^Bearer ([^\s]+)$/;

/** The credential an `Authorization` header carries, or undefined for none or one in another shape. */
export const bearerCredential = (authorization: string | undefined): string | undefined =>
  authorization === undefined ? undefined : bearer.exec(authorization)?.[1];
