/**
 * What a person sees on the sign-in, invitation, account and OAuth consent pages: pure functions from a view model to
 * a complete HTML document, every value escaped, no inline script or style (the pages are served with
 * `peoplePagePolicy`). The routes (src/http/people-pages.ts) decide what to show; these decide how.
 */
export { type AccountView, accountPage } from './people-views/account.js';
export { type ConsentView, consentPage, type ScopeInWords } from './people-views/consent.js';
export { type ErrorView, errorPage } from './people-views/error.js';
export { type InviteView, invitePage } from './people-views/invite.js';
export { type PageAssets, peopleAssets, peoplePagePolicy, peoplePolicy } from './people-views/layout.js';
export {
  type EmailSentView,
  emailSentPage,
  type LinkView,
  linkPage,
  type SignInView,
  signInPage,
} from './people-views/sign-in.js';
