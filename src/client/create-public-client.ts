import type { Client } from 'openapi-fetch';
import type { paths } from '../../generated/openapi.js';
import { createBearerClient, type TransportOptions } from './create-form-funnel-client.js';

/** The public operations (`/public/…`): all a publishable key can call. */
export type PublicPaths = Pick<paths, Extract<keyof paths, `/public/${string}`>>;

export type FormFunnelPublicClient = Client<PublicPaths>;

export interface PublicClientOptions extends TransportOptions {
  /** A publishable key (`svc_pub_live_…`, `svc_pub_test_…`); not a secret, made to be embedded in a web page. */
  publishableKey: string;
}

const publishableKeyShape = /^svc_pub_(live|test)_[0-9A-Za-z]+$/;

/**
 * A client for web pages: typed from the same contract as `createFormFunnelClient`, limited to the public operations
 * (render a form, submit to it, continue a partial submission), authenticated with a publishable key. A secret key is
 * refused here, before it can reach a page (the API refuses it too: 403 `secret_key_not_allowed`).
 */
export function createPublicClient(options: PublicClientOptions): FormFunnelPublicClient {
  const { publishableKey, ...transport } = options;
  if (typeof publishableKey !== 'string' || !publishableKeyShape.test(publishableKey)) {
    throw new TypeError(
      'Form-Funnel public client: `publishableKey` must be a publishable key (svc_pub_live_… or svc_pub_test_…); ' +
        'never put a secret key in a web page.',
    );
  }
  return createBearerClient<PublicPaths>(publishableKey, transport);
}
