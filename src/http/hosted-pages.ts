/**
 * Hosted forms' pages, outside `/v1`: `GET /f/{form_id}` (HTML), its hashed static files under `/f/assets/`, and
 * `GET /embed.js`, and `GET /favicon.ico`. The page holds no script or style of its own (its Content-Security-Policy
 * allows files of this origin only); what its script needs is in data attributes. An unknown or unhosted form, and a
 * page framed with a key that does not reach it, get the same plain 404 page, which names nothing; in test mode only
 * (a test form or a test key), it says why (src/domain/hosting/pages.ts decides what may be told).
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response, Router } from 'express';
import express from 'express';
import type { Logger } from 'pino';
import { isAppError } from '../domain/errors.js';
import { hostedPageAccess, hostedPageStart, type PageRefusal } from '../domain/hosting/pages.js';
import type { Services } from '../domain/services.js';
import { builtInLanguage, directionOf, languageOf } from '../hosted/languages.js';
import { catalogueAsset } from '../hosted/manifest.js';
import { catalogues } from '../hosted/page/i18n/catalogues.js';
import { localizer } from '../hosted/page/i18n/localize.js';
import { StoreUnavailable } from '../store/errors.js';
import { STORE_RETRY_AFTER_SECONDS } from './error-handler.js';
import { escapeHtml } from './escape-html.js';
import { favicon } from './favicon.js';
import type { HostedAssets } from './hosted-assets.js';
import { stateOf } from './locals.js';

/** Every hosted response: nothing from elsewhere, no inline script or style, no referrer leaving the page. */
const baseHeaders = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** The page's Content-Security-Policy; the "Host a form" guide states it for a page no site frames. */
export const pagePolicy = (frameAncestors: readonly string[]): string =>
  [
    "default-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
    `frame-ancestors ${frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'"}`,
  ].join('; ');

const notFoundPage =
  '<!doctype html><html lang="en" dir="ltr"><head><meta charset="utf-8"><title>Not found</title></head>' +
  '<body><h1>Not found</h1><p>There is no form at this address.</p></body></html>';

/** What a developer reads, in test mode only, on the page their frame or link shows in place of the form. */
function refusalReason(why: PageRefusal): string {
  switch (why.reason) {
    case 'hosting_off':
      return 'This form is not hosted: turn on its <code>hosting.enabled</code> (PATCH /v1/forms/{id}).';
    case 'unknown_key':
      return 'The key in <code>data-key</code> is not one of your publishable keys: check its <code>value</code>.';
    case 'revoked_key':
      return 'The key in <code>data-key</code> was revoked: use an active publishable key.';
    case 'other_workspace':
      return 'The key in <code>data-key</code> belongs to another workspace than this form.';
    case 'environment':
      return (
        `The key in <code>data-key</code> is a ${why.key} key and this form is a ${why.form} form: a key reaches forms ` +
        `of its own environment only. Use a ${why.form} key${why.form === 'live' ? ', or a test form while you develop' : ''}.`
      );
    case 'attachment':
      return why.attachment === 'form'
        ? 'The key in <code>data-key</code> is attached to another form: use a key attached to this form, or to the workspace.'
        : 'The key in <code>data-key</code> is attached to a folder this form is not in: use a key that reaches this form.';
    case 'origin':
      return (
        `The page framing this form, on <code>${escapeHtml(why.origin)}</code>, is not among the key's ` +
        '<code>allowed_origins</code>: add it (PATCH /v1/publishable_keys/{id}). <code>http://localhost</code> and ' +
        '<code>http://127.0.0.1</code> origins are for test keys only; a live key needs an https:// origin.'
      );
  }
}

/** The 404 of a refusal in test mode: the same page, with the reason under it. */
const explainedNotFoundPage = (why: PageRefusal): string =>
  '<!doctype html><html lang="en" dir="ltr"><head><meta charset="utf-8"><title>Not found</title></head>' +
  '<body><h1>Not found</h1><p>This form cannot be shown here.</p>' +
  `<p>${refusalReason(why)}</p><p>Shown in test mode only: in live mode this page says "not found" and nothing more.</p>` +
  '</body></html>';

/** The policy of the 404 page and of refusals: they load and run nothing. */
export const plainPagePolicy = "default-src 'none'";

function sendNotFound(res: Response, why?: PageRefusal): void {
  res
    .status(404)
    .set({ ...baseHeaders, 'Content-Security-Policy': plainPagePolicy, 'Cache-Control': 'no-store' })
    .type('html')
    .send(why === undefined ? notFoundPage : explainedNotFoundPage(why));
}

/** A refusal's page, for a respondent and not for a program: what happened and, for a 429, that waiting helps. */
const refusalPage = (status: number): string => {
  const [title, text] =
    status === 429
      ? ['Too many requests', 'Too many requests came from your network just now. Wait a minute, then reload this page.']
      : status === 503
        ? ['Unavailable', 'The form cannot be shown just now. Reload this page in a moment.']
        : ['Something went wrong', 'The form cannot be shown. Reload this page later.'];
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
    `<body><h1>${title}</h1><p>${text}</p></body></html>`
  );
};

/**
 * Refusals of the pages and the embed script (the per-address limit's 429 above all, which a respondent behind a
 * shared address can meet) as a respondent's browser can show them: a plain page, not problem+json, and for the
 * embed script a script that does nothing. `Retry-After` is kept; the request id too, for support.
 */
function refusals(log: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const { requestId } = stateOf(res);
    let status = 500;
    let retryAfter: number | undefined;
    if (isAppError(error)) {
      status = error.status;
      retryAfter = error.details?.retry_after_seconds as number | undefined;
    } else if (error instanceof StoreUnavailable) {
      log.warn({ request_id: requestId, err: error.cause ?? error, reason: error.reason }, 'store unavailable');
      status = 503;
      retryAfter = STORE_RETRY_AFTER_SECONDS;
    } else {
      log.error({ request_id: requestId, err: error }, 'unhandled error');
    }
    res.status(status).set({ ...baseHeaders, 'Content-Security-Policy': plainPagePolicy, 'Cache-Control': 'no-store' });
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    if (req.path === '/embed.js') {
      // Nothing to run: the customer's page goes on without the form, and its console's network tab says why.
      res.type('js').send(`/* Form-Funnel: embed.js refused (${status})${requestId ? `; request ${requestId}` : ''}. */\n`);
    } else {
      res.type('html').send(refusalPage(status));
    }
  };
}

/**
 * The origin of the page that frames this one, for a frame request only (`Sec-Fetch-Dest`): from `Referer`, which a
 * cross-origin frame's request carries as the framing page's origin under browsers' default referrer policy, else from
 * `parent_url`, which embed.js adds. Either can be missing or made up: it only chooses what a test-mode refusal
 * says; `frame-ancestors` is what keeps the page out of other sites' frames.
 */
function framingOrigin(req: Request): string | undefined {
  if (!['iframe', 'frame'].includes(req.get('Sec-Fetch-Dest') ?? '')) return undefined;
  const parentUrl = req.query.parent_url;
  for (const address of [req.get('Referer'), typeof parentUrl === 'string' ? parentUrl : undefined]) {
    if (address === undefined) continue;
    try {
      const { origin, protocol } = new URL(address);
      if (protocol === 'https:' || protocol === 'http:') return origin;
    } catch {
      // Not a URL: the next one.
    }
  }
  return undefined;
}

/** JSON inside a non-executing `<script type="application/json">`: nothing in it may close the element. */
const embeddedJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The script of the form's language's catalogue, for any language but English (which the page script carries): named
 * before the page script, so the two download together and run in order, the catalogue first (page/i18n/load.ts).
 */
function catalogueScript(assets: HostedAssets, language: string): string {
  const spoken = languageOf(language);
  return spoken === builtInLanguage ? '' : `<script src="/f/assets/${assets.manifest[catalogueAsset(spoken)]}" defer></script>\n`;
}

/** What the page says where it cannot run, in the form's language. */
const noScriptText = (language: string): string => localizer(language, catalogues[languageOf(language)]).text('noScript');

function pageHtml(assets: HostedAssets, title: string, language: string, data: Record<string, string>, form: unknown): string {
  const attributes = Object.entries(data)
    .map(([name, value]) => ` data-${name}="${escapeHtml(value)}"`)
    .join('');
  return `<!doctype html>
<html lang="${escapeHtml(language)}" dir="${directionOf(language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="/f/assets/${assets.manifest['page.css']}">
${catalogueScript(assets, language)}<script src="/f/assets/${assets.manifest['page.js']}" defer></script>
</head>
<body>
<script type="application/json" id="hosted-form-data">${embeddedJson(form)}</script>
<main id="hosted-form"${attributes}><h1>${escapeHtml(title)}</h1><noscript><p>${escapeHtml(noScriptText(language))}</p></noscript></main>
</body>
</html>
`;
}

export function hostedPages(
  services: Services,
  assetsOf: () => HostedAssets | undefined,
  limitAddress: RequestHandler,
  log: Logger,
): Router {
  const router = express.Router({ caseSensitive: true });
  const unbuilt = (res: Response) =>
    void res.status(503).set(baseHeaders).type('text').send('The hosted page is not built: run npm run build.');

  router.get('/f/assets/:file', (req: Request<{ file: string }>, res) => {
    const file = assetsOf()?.files.get(req.params.file);
    if (!file) return sendNotFound(res);
    res
      .set({ ...baseHeaders, 'Cache-Control': 'public, max-age=31536000, immutable' })
      .type(req.params.file.endsWith('.css') ? 'css' : 'js')
      .send(file);
  });

  router.get('/f/:formId', limitAddress, async (req: Request<{ formId: string }>, res, next) => {
    const assets = assetsOf();
    if (!assets) return unbuilt(res);
    try {
      const key = req.query.embed;
      const access = await hostedPageAccess(services, {
        formId: req.params.formId,
        ...(typeof key === 'string' ? { embed: { key, parentOrigin: framingOrigin(req) } } : {}),
      });
      if (!access.served) return sendNotFound(res, access.why);
      const { record } = access;
      const start = await hostedPageStart(services, record);
      res
        .set({ ...baseHeaders, 'Content-Security-Policy': pagePolicy(access.frameAncestors), 'Cache-Control': 'no-store' })
        .type('html')
        .send(
          pageHtml(
            assets,
            record.form.name,
            record.form.language,
            {
              form: record.form.id,
              key: start.key,
              api: '/v1',
              worker: `/f/assets/${assets.manifest['worker.js']}`,
            },
            start.form,
          ),
        );
    } catch (error) {
      if (isAppError(error) && error.code === 'resource_not_found') return sendNotFound(res);
      next(error);
    }
  });

  // Browsers ask for it on every page of the origin that does not name an icon (the not-found page, a refusal);
  // the form's page names it. The same bytes for every build: cached for a day, not for good.
  router.get('/favicon.ico', (_req, res) => {
    res
      .set({ ...baseHeaders, 'Cache-Control': 'public, max-age=86400' })
      .type('image/x-icon')
      .send(favicon());
  });

  // A stable address customers put in their pages: cached briefly, so a new build reaches them within minutes.
  router.get('/embed.js', (_req, res) => {
    const assets = assetsOf();
    if (!assets) return unbuilt(res);
    res
      .set({ ...baseHeaders, 'Cache-Control': 'public, max-age=300', 'Cross-Origin-Resource-Policy': 'cross-origin' })
      .type('js')
      .send(assets.files.get(assets.manifest['embed.js']));
  });
  router.use(refusals(log));
  return router;
}
