// The public surface of the Form-Funnel client. Anything not exported here is internal.
export type { Credential } from './api-key.js';
export {
  createFormFunnelClient,
  DEFAULT_BASE_URL,
  type FormFunnelClient,
  type FormFunnelClientOptions,
} from './create-form-funnel-client.js';
export {
  createPublicClient,
  type FormFunnelPublicClient,
  type PublicClientOptions,
  type PublicPaths,
} from './create-public-client.js';
export { type ExportSubmissionsOptions, type ExportSubmissionsQuery, exportSubmissions } from './export-submissions.js';
export { FormFunnelError, type FormFunnelErrorKind, isFormFunnelError } from './form-funnel-error.js';
export { type LogoContentType, type SetFormLogoOptions, setFormLogo } from './form-logo.js';
export { entityTagOf, ifMatch, ifNoneMatch, notModified } from './if-match.js';
export { type ListInit, type ListItem, type ListPath, paginate } from './paginate.js';
export { type WaitForRescoreJobOptions, waitForRescoreJob } from './rescore-jobs.js';
export type { FetchLike, Sleep } from './retrying-fetch.js';
export type * from './schemas.js';
export { type UnwrappedData, unwrap } from './unwrap.js';
export {
  type RawBody,
  type SignatureHeader,
  signWebhookPayload,
  type VerifyWebhookOptions,
  verifyWebhookSignature,
  type WebhookEvent,
  WebhookSignatureError,
  type WebhookSignatureFailureReason,
} from './webhooks.js';
