/**
 * `GET /f/{form_id}`, its static files and `GET /embed.js`, over HTTP: the page of a hosted form with its strict
 * Content-Security-Policy and its hosted-pages key, the same plain 404 for a form that is unknown, not hosted or framed
 * with a key that does not reach it (in live mode), the page's language and direction, its icon, and the hosted-pages
 * key kept out of the customer's keys.
 */
import express, { type RequestHandler } from 'express';
import pino from 'pino';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { hostedPages } from '../../src/http/hosted-pages.js';
import { createForm } from '../support/factories.js';
import { createTestApi } from '../support/harness.js';
import { absentId, asText, expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey } from '../support/publishable-keys.js';

const api = useWatchedApi({ rateLimits: generousLimits });

const getText = (path: string) => api.call('get', path, null).buffer(true).parse(asText);
const attribute = (html: string, name: string) => new RegExp(`data-${name}="([^"]*)"`).exec(html)?.[1];

describe('hosted form pages', () => {
  it('when a form is hosted, then its page is HTML under a self-only policy, naming the form and a key of the service', async () => {
    const form = await createForm(api, { name: 'Demo <request>', hosting: { enabled: true } });
    const res = await getText(`/f/${form.id}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'self'; base-uri 'none'; form-action 'none'; object-src 'none'; frame-ancestors 'none'",
    );
    expect(res.body).toContain('<title>Demo &#60;request&#62;</title>');
    expect(res.body).not.toMatch(/<script>|<style>| style=/);
    expect(attribute(res.body, 'form')).toBe(form.id);
    const key = attribute(res.body, 'key')!;
    expect(key).toMatch(/^svc_pub_live_[0-9A-Za-z]{24}$/);

    // One key per workspace and environment, never among the customer's keys.
    expect(attribute((await getText(`/f/${form.id}`)).body, 'key')).toBe(key);
    const listed = await api.call('get', '/v1/publishable_keys');
    expect(listed.body.data.map((item: { value: string }) => item.value)).not.toContain(key);

    const script = /<script src="(\/f\/assets\/[^"]+\.js)" defer>/.exec(res.body)![1]!;
    const asset = await getText(script);
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toMatch(/^application\/javascript|^text\/javascript/);
  });

  it('when no public base URL is configured and the page calls the public operations from the host it asked, then they answer; from another origin, 403', async () => {
    const form = await createForm(api, { hosting: { enabled: true } });
    const key = attribute((await getText(`/f/${form.id}`)).body, 'key')!;
    const own = new URL(api.baseUrl).origin;
    const read = await api.call('get', `/v1/public/forms/${form.id}`, key).set('Origin', own);
    expect(read.status).toBe(200);
    expect(read.body.appearance).toEqual({ accent_color: '#4338ca', font: 'system' });
    const elsewhere = await api.call('get', `/v1/public/forms/${form.id}`, key).set('Origin', 'https://www.acme.example');
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.code).toBe('origin_not_allowed');

    // Turning hosting off closes the page and its key's reach at once.
    await api.call('patch', `/v1/forms/${form.id}`).send({ hosting: { enabled: false } });
    expect((await api.call('get', `/v1/public/forms/${form.id}`, key).set('Origin', own)).status).toBe(404);
  });

  it('when a form is not hosted, unknown, or framed with a key that does not reach it, then the same plain 404 page', async () => {
    const form = await createForm(api);
    const hosted = await createForm(api, { hosting: { enabled: true } });
    const other = await createForm(api);
    const attached = await createPublishableKey(api, { environment: 'live', attachment: { type: 'form', form_id: other.id } });
    const answers = await Promise.all([
      getText(`/f/${form.id}`),
      getText(`/f/${absentId('form')}`),
      getText(`/f/${hosted.id}?embed=${attached.value}`),
      getText(`/f/${hosted.id}?embed=svc_pub_live_${'x'.repeat(24)}`),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toBe(answers[0]!.body);
      expect(res.body).not.toContain(form.id);
    }
  });

  it('when a form that was hosted is turned off, then its page is the same plain 404 as an unknown form’s', async () => {
    const form = await createForm(api, { hosting: { enabled: true } });
    expect((await getText(`/f/${form.id}`)).status).toBe(200);
    await api.call('patch', `/v1/forms/${form.id}`).send({ hosting: { enabled: false } });
    const [closed, unknown] = await Promise.all([getText(`/f/${form.id}`), getText(`/f/${absentId('form')}`)]);
    expect(closed.status).toBe(404);
    expect(closed.headers['content-type']).toMatch(/^text\/html/);
    expect(closed.body).toBe(unknown.body);
  });

  it('when the page is framed with a revoked live key or another workspace’s live key, then the same plain 404', async () => {
    const form = await createForm(api, { hosting: { enabled: true } });
    const revoked = await createPublishableKey(api, { environment: 'live' });
    expect((await api.call('delete', `/v1/publishable_keys/${revoked.id}`)).status).toBe(200);
    const other = await api.otherWorkspace();
    const othersKey = await createPublishableKey(api, { environment: 'live' }, other.live_admin_key);
    // Each of them would frame the page if it reached the form: the denial is the key's, not the request's. (A test
    // key's refusal says why: hosted-not-found.test.ts.)
    const reaching = await createPublishableKey(api, { environment: 'live' });
    expect((await getText(`/f/${form.id}?embed=${reaching.value}`)).status).toBe(200);
    const unknown = await getText(`/f/${absentId('form')}`);
    for (const key of [revoked, othersKey]) {
      const res = await getText(`/f/${form.id}?embed=${key.value}`);
      expect(res.status, key.environment).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toBe("default-src 'none'");
      expect(res.body).toBe(unknown.body);
    }
  });

  it('when the page is framed with a key that reaches the form, then only that key’s origins may frame it', async () => {
    const form = await createForm(api, { hosting: { enabled: true } });
    const key = await createPublishableKey(api, {
      environment: 'live',
      allowed_origins: ['https://www.acme.example', 'https://shop.acme.example'],
    });
    const res = await getText(`/f/${form.id}?embed=${key.value}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toMatch(/frame-ancestors https:\/\/www\.acme\.example https:\/\/shop\.acme\.example$/);
  });

  it.each([
    ['en', 'ltr', 'This form needs JavaScript.'],
    ['de', 'ltr', 'Dieses Formular benötigt JavaScript.'],
    ['pt-BR', 'ltr', 'Este formulário precisa de JavaScript.'],
    ['ar', 'rtl', 'يتطلب هذا النموذج JavaScript.'],
    ['he', 'rtl', 'טופס זה דורש JavaScript.'],
    ['he-IL', 'rtl', 'טופס זה דורש JavaScript.'],
  ])(
    'when a hosted form’s language is %s, then its page is <html lang dir="%s"> and says where it cannot run: %s',
    async (language, direction, noScript) => {
      const form = await createForm(api, { hosting: { enabled: true }, language });
      const res = await getText(`/f/${form.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toContain(`<html lang="${language}" dir="${direction}">`);
      expect(res.body).toContain(`<noscript><p>${noScript}</p></noscript>`);
    },
  );

  it('when a hosted form is in German, then its page names the German catalogue’s script before the page script; in English, none', async () => {
    const german = await createForm(api, { hosting: { enabled: true }, language: 'de-AT' });
    const scripts = (html: string) => [...html.matchAll(/<script src="\/f\/assets\/([^"]+)" defer><\/script>/g)].map(([, file]) => file!);
    const [catalogue, page, ...more] = scripts((await getText(`/f/${german.id}`)).body);
    expect(more).toEqual([]);
    expect(catalogue).toMatch(/^messages-de\.[A-Z0-9]+\.js$/);
    expect(page).toMatch(/^page\.[A-Z0-9]+\.js$/);
    const served = await getText(`/f/assets/${catalogue}`);
    expect(served.status).toBe(200);
    expect(served.body).toContain('Starten');

    const english = await createForm(api, { hosting: { enabled: true } });
    expect(scripts((await getText(`/f/${english.id}`)).body)).toEqual([page]);
  });

  it('when a browser asks for /favicon.ico, then it gets an icon, cached for a day; the page names it, so the browser need not guess', async () => {
    const res = await api.call('get', '/favicon.ico', null).buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/x-icon');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const icon = res.body as Buffer;
    // An ICO header with one 32 by 32 image, which is a PNG, stored right after the directory.
    expect([...icon.subarray(0, 8)]).toEqual([0, 0, 1, 0, 1, 0, 32, 32]);
    expect(icon.readUInt32LE(14)).toBe(icon.length - 22);
    expect(icon.subarray(22, 30).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
    expect(icon.length).toBeLessThan(1024);

    const form = await createForm(api, { hosting: { enabled: true } });
    expect((await getText(`/f/${form.id}`)).body).toContain('<link rel="icon" href="/favicon.ico">');
  });

  it('when /embed.js is fetched, then it is a script any site may load, cached for minutes', async () => {
    const res = await getText('/embed.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });
});

describe('the page’s API calls', () => {
  const own = () => new URL(api.baseUrl).origin;
  const pageKey = async (formId: string) => attribute((await getText(`/f/${formId}`)).body, 'key')!;

  it('when hosting is turned off, then the hosted key can neither start nor continue a submission of the form', async () => {
    const form = await createForm(api, { hosting: { enabled: true } });
    const key = await pageKey(form.id);
    const started = await api
      .call('post', '/v1/public/submissions', key)
      .set('Origin', own())
      .send({ form_id: form.id, answers: { email: 'tom@brightdesk.example' }, status: 'partial' });
    expect(started.status).toBe(201);
    const { id, resume_token } = started.body;

    await api.call('patch', `/v1/forms/${form.id}`).send({ hosting: { enabled: false } });
    const another = await api
      .call('post', '/v1/public/submissions', key)
      .set('Origin', own())
      .send({ form_id: form.id, answers: { email: 'ada@brightdesk.example' } });
    expectProblem(another, 404, 'not_found', 'resource_not_found');
    const continued = await api
      .call('patch', `/v1/public/submissions/${id}`, key)
      .set('Origin', own())
      .send({ resume_token, answers: { company: 'Brightdesk' }, status: 'completed' });
    expectProblem(continued, 404, 'not_found', 'resource_not_found');
    expect((await api.call('get', `/v1/submissions/${id}`)).body).toMatchObject({ status: 'partial' });
  });

  it('when a test-mode form is hosted, then its page uses a test key and its submissions are test submissions', async () => {
    const form = await createForm(api, { hosting: { enabled: true } }, api.workspace.test_admin_key);
    expect(form.test).toBe(true);
    const key = await pageKey(form.id);
    expect(key).toMatch(/^svc_pub_test_[0-9A-Za-z]{24}$/);
    const sent = await api
      .call('post', '/v1/public/submissions', key)
      .set('Origin', own())
      .send({ form_id: form.id, answers: { email: 'tom@brightdesk.example' } });
    expect(sent.status).toBe(201);
    const stored = await api.call('get', `/v1/submissions/${sent.body.id}`, api.workspace.test_admin_key);
    expect(stored.body).toMatchObject({ form_id: form.id, test: true, status: 'completed' });
    // Not among the live submissions.
    expect((await api.call('get', `/v1/submissions/${sent.body.id}`)).status).toBe(404);
  });
});

describe('a failure while a page is served', () => {
  it('when reading the form fails, then the respondent gets a plain 500 page, and nothing of the failure', async () => {
    const failingForms = new Proxy(api.store.forms, {
      get: (target, name) =>
        name === 'workspaceOf'
          ? async () => {
              throw new Error('SELECT workspace_id FROM forms: disk I/O error');
            }
          : Reflect.get(target, name),
    });
    // The same store with its forms failing; closing this app leaves the store to the file's.
    const store = new Proxy(api.store, {
      get: (target, name) => (name === 'forms' ? failingForms : name === 'close' ? async () => {} : Reflect.get(target, name)),
    });
    const failing = await createTestApi({ store });
    try {
      const res = await failing
        .call('get', `/f/${absentId('form')}`, null)
        .buffer(true)
        .parse(asText);
      expect(res.status).toBe(500);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toBe("default-src 'none'");
      expect(res.body).toContain('<h1>Something went wrong</h1>');
      expect(res.body).not.toMatch(/SELECT|disk/);
    } finally {
      await failing.close();
    }
  });
});

describe('a failure while the embed script is served', () => {
  it('when the script cannot be read, then a customer’s page gets a 500 script that does nothing, not problem+json', async () => {
    const app = express();
    const pass: RequestHandler = (_req, _res, next) => next();
    app.use(
      hostedPages(
        api.services,
        () => {
          throw new Error('dist/hosted/manifest.json: unreadable');
        },
        pass,
        pino({ level: 'silent' }),
      ),
    );
    const res = await request(app).get('/embed.js').buffer(true).parse(asText);
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^application\/javascript|^text\/javascript/);
    expect(res.headers['content-security-policy']).toBe("default-src 'none'");
    expect(res.body).toMatch(/^\/\* [^*]* \*\/\n$/);
    expect(res.body).not.toContain('manifest');
  });
});

describe('behind a proxy that rewrites the Host', () => {
  const proxied = useWatchedApi({ rateLimits: generousLimits, publicBaseUrl: 'https://forms.acme.example/' });

  it('when a public base URL is configured, then the hosted key allows its origin, and not the origin of the Host the service was reached by', async () => {
    const form = await createForm(proxied, { hosting: { enabled: true } });
    const key = attribute((await proxied.call('get', `/f/${form.id}`, null).buffer(true).parse(asText)).body, 'key')!;
    const read = await proxied.call('get', `/v1/public/forms/${form.id}`, key).set('Origin', 'https://forms.acme.example');
    expect(read.status).toBe(200);
    expect(read.headers['access-control-allow-origin']).toBe('https://forms.acme.example');
    const byHost = await proxied.call('get', `/v1/public/forms/${form.id}`, key).set('Origin', new URL(proxied.baseUrl).origin);
    expect(byHost.status).toBe(403);
    expect(byHost.body.code).toBe('origin_not_allowed');
  });
});

describe('the guide’s pictures', () => {
  it('when the reference docs show the "Host a form" guide, then its pictures are served where its links lead', async () => {
    const res = await api.call('get', '/docs/images/hosted-forms/step-1.png', null);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
  });
});

describe('the per-address limit', () => {
  const limited = useWatchedApi({ rateLimits: { ...generousLimits, publicPerAddressPerMinute: 2 } });

  it('when an address views a page and calls the public operations, then both count against its one budget of public requests', async () => {
    const form = await createForm(limited, { hosting: { enabled: true } });
    const page = await limited.call('get', `/f/${form.id}`, null).buffer(true).parse(asText);
    expect(page.status).toBe(200);
    const key = attribute(page.body, 'key')!;
    expect((await limited.call('get', `/v1/public/forms/${form.id}`, key)).status).toBe(200);
    const refused = await limited.call('get', `/f/${form.id}`, null).buffer(true).parse(asText);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  });

  it('when a page view is refused for the address, then the respondent gets a plain page saying to wait, not problem+json', async () => {
    const form = await createForm(limited, { hosting: { enabled: true } });
    let refused = await limited.call('get', `/f/${form.id}`, null).buffer(true).parse(asText);
    while (refused.status === 200) refused = await limited.call('get', `/f/${form.id}`, null).buffer(true).parse(asText);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
    expect(refused.headers['content-security-policy']).toBe("default-src 'none'");
    expect(refused.body).toContain('<h1>Too many requests</h1>');
    expect(refused.body).not.toContain('rate_limited');
  });
});
