/**
 * The dashboard's page: `GET /dashboard/` (and every address below it, since the dashboard routes in the browser)
 * answers one HTML document that loads the dashboard's hashed script and stylesheet. Everything the dashboard shows
 * comes from `/v1` through the typed client (src/dashboard/); this route serves no data and reads no cookie.
 *
 * Its policy: files of this origin only, no inline script or style, requests to this origin only (the API), forms
 * posting here only (sign-out), never framed.
 */
import type { RequestHandler, Response, Router } from 'express';
import express from 'express';
import { dashboardClientId, dashboardPath } from '../domain/oauth/first-party.js';
import { escapeHtml as html } from './escape-html.js';
import type { HostedAssets } from './hosted-assets.js';

/**
 * The page's policy. Images may also come from the public base URL's origin, where a form's logo is served
 * (`/f/{id}/logo/...`) when the service is reached under another name than the one it gives its pages.
 */
export function dashboardPolicy(publicBaseUrl?: string): string {
  const logoOrigin = publicBaseUrl === undefined ? '' : ` ${new URL(publicBaseUrl).origin}`;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data:${logoOrigin}`,
    "connect-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const headersOf = (publicBaseUrl: string | undefined) => ({
  'Content-Security-Policy': dashboardPolicy(publicBaseUrl),
  'Cache-Control': 'no-store',
  // The address bar carries an authorization code for a moment: it must never leave in a Referer.
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
});

export interface DashboardPageOptions {
  assetsOf: () => HostedAssets | undefined;
  limitAddress: RequestHandler;
  /** The consent page's path (the contract's `authorizationUrl`). */
  consentPath: string;
  /** `PUBLIC_BASE_URL`, when set: the origin the forms' logos are served from. */
  publicBaseUrl?: string | undefined;
}

function page(assets: HostedAssets, consentPath: string): string {
  const asset = (name: keyof HostedAssets['manifest']) => `/f/assets/${html(assets.manifest[name])}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dashboard · Form-Funnel</title>
<link rel="stylesheet" href="${asset('dashboard.css')}">
<script src="${asset('dashboard.js')}" defer></script>
</head>
<body>
<div id="dashboard" data-api="/v1" data-authorize="${html(consentPath)}" data-client-id="${html(dashboardClientId)}"
 data-account="/account" data-sign-out="/sign-out" data-preview-stylesheet="${asset('page.css')}">
<noscript><p>The dashboard needs JavaScript. Your account page works without it: <a href="/account">/account</a>.</p></noscript>
<p role="status">Loading the dashboard…</p>
</div>
</body>
</html>
`;
}

export function dashboardPage(options: DashboardPageOptions): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const headers = headersOf(options.publicBaseUrl);
  const send = (res: Response, status: number, body: string) => void res.status(status).set(headers).type('html').send(body);
  router.get('/dashboard', options.limitAddress, (_req, res) => void res.redirect(308, dashboardPath));
  router.get(['/dashboard/', '/dashboard/*screen'], options.limitAddress, (_req, res) => {
    const assets = options.assetsOf();
    if (!assets) return send(res, 503, '<!doctype html><title>Not built</title><p>The dashboard is not built: run npm run build.</p>');
    send(res, 200, page(assets, options.consentPath));
  });
  return router;
}
