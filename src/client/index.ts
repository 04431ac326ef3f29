// The public surface of the Form-Funnel client. Anything not exported here is internal.
export {
  createFormFunnelClient,
  DEFAULT_BASE_URL,
  type FormFunnelClient,
  type FormFunnelClientOptions,
} from './create-form-funnel-client.js';
export { FormFunnelError, isFormFunnelError } from './form-funnel-error.js';
export { unwrap, type UnwrappedData } from './unwrap.js';
export type { FetchLike, Sleep } from './retrying-fetch.js';
export {
  signWebhookPayload,
  verifyWebhookSignature,
  WebhookSignatureError,
  type RawBody,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookSignatureFailureReason,
} from './webhooks.js';
export type * from './schemas.js';
