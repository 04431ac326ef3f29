/**
 * Forms' logos, outside `/v1`: `GET /f/{form_id}/logo/{sha256}.{png|jpg|webp}`, without authentication, for the hosted
 * page and for any page that shows a public form's `logo.url`. An address names one image by its content hash, so it is
 * cached for good; only the image the form names now answers, and only while the form exists (domain/forms/logo.ts).
 * An image is sent as what it was checked to be on upload (`nosniff`), and with a policy under which it runs nothing
 * even when opened on its own.
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response, Router } from 'express';
import express from 'express';
import type { Logger } from 'pino';
import { isAppError } from '../domain/errors.js';
import { findLogoFile } from '../domain/forms/logo.js';
import type { LogoType } from '../domain/forms/logo-image.js';
import type { Services } from '../domain/services.js';
import { StoreUnavailable } from '../store/errors.js';
import { logoExtensions } from '../store/rows/forms.js';
import { STORE_RETRY_AFTER_SECONDS } from './error-handler.js';
import { stateOf } from './locals.js';

/** A logo's media type by the extension of its address: the inverse of the store's `logoExtensions`. */
const typesByExtension: ReadonlyMap<string, LogoType> = new Map(
  Object.entries(logoExtensions).map(([type, extension]) => [extension, type as LogoType]),
);

const fileName = new RegExp(`^([0-9a-f]{64})\\.(${[...typesByExtension.keys()].join('|')})$`);

/** Every answer of this route: sent as what it is, running nothing, never framing anything. */
const baseHeaders = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'",
};

function sendRefusal(res: Response, status: number, text: string): void {
  res
    .status(status)
    .set({ ...baseHeaders, 'Cache-Control': 'no-store' })
    .type('text')
    .send(text);
}

/** What a refusal says: an image's address is read by a browser's `<img>`, so plain text, not problem+json. */
function refusals(log: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) return next(error);
    const { requestId } = stateOf(res);
    // A limit's refusal (429) has its Retry-After set by the limiter.
    if (isAppError(error)) return sendRefusal(res, error.status, `${error.message}\n`);
    if (error instanceof StoreUnavailable) {
      log.warn({ request_id: requestId, err: error.cause ?? error, reason: error.reason }, 'store unavailable');
      res.setHeader('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
      return sendRefusal(res, 503, 'The image cannot be sent just now; retry in a moment.\n');
    }
    log.error({ request_id: requestId, err: error }, 'unhandled error');
    sendRefusal(res, 500, `Something went wrong on our side; request ${requestId}.\n`);
  };
}

export function formLogoFiles(services: Services, limitAddress: RequestHandler, log: Logger): Router {
  const router = express.Router({ caseSensitive: true });
  router.get('/f/:formId/logo/:file', limitAddress, async (req: Request<{ formId: string; file: string }>, res) => {
    const named = fileName.exec(req.params.file);
    const file =
      named && (await findLogoFile(services, req.params.formId, { sha256: named[1]!, content_type: typesByExtension.get(named[2]!)! }));
    if (!named || !file) return sendRefusal(res, 404, 'No image is at this address.\n');
    res.set({
      ...baseHeaders,
      'Cache-Control': 'public, max-age=31536000, immutable',
      ETag: `"${named[1]}"`,
      // Any site may show the image (a customer's own page renders the public form's logo), as it may load embed.js.
      'Cross-Origin-Resource-Policy': 'cross-origin',
    });
    // A revalidation that names the ETag gets 304 from `send` itself.
    res.type(file.contentType).send(file.bytes);
  });
  router.use(refusals(log));
  return router;
}
