/**
 * A refusal on a person's page (an expired link, an invitation for someone else, a forged origin). The pages show it
 * as a page, never as problem+json: these are not API errors, and their codes are not the contract's.
 */
export class PageRefusal extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409 | 410 | 429,
    readonly title: string,
    message: string,
  ) {
    super(message);
    this.name = 'PageRefusal';
  }
}

export const isPageRefusal = (error: unknown): error is PageRefusal => error instanceof PageRefusal;
