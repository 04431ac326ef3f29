/**
 * The 404 page of `GET /f/{form_id}`, on both stores: in test mode (a test form, or a test key named by embed.js) it
 * says why the form is not shown (not hosted, a key that is unknown, revoked, of another workspace or environment,
 * attached elsewhere, or a framing page on an origin the key does not allow); in live mode it stays the bare page
 * of an unknown form, byte for byte, and a form that is not hosted is never revealed to another workspace's key.
 */
import { describe, expect, it } from 'vitest';
import { createFolder, createForm } from '../support/factories.js';
import { absentId, asText, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey } from '../support/publishable-keys.js';

const api = useWatchedApi({ rateLimits: generousLimits });

const getPage = (path: string, headers: Record<string, string> = {}) => api.call('get', path, null).set(headers).buffer(true).parse(asText);
const embedded = (formId: string, key: string) => `/f/${formId}?embed=${encodeURIComponent(key)}`;
const testAdmin = () => api.workspace.test_admin_key;
/** What a browser sends for the frame embed.js makes on a page of `origin`. */
const frameRequest = (origin: string) => ({ 'Sec-Fetch-Dest': 'iframe', Referer: `${origin}/` });

/** The bare 404 page: what an unknown form gets. */
const barePage = async () => (await getPage(`/f/${absentId('form')}`)).body;

/** Expects the test-mode 404: the plain page's status and headers, saying `reason`. */
async function expectReason(path: string, reason: RegExp, headers: Record<string, string> = {}) {
  const res = await getPage(path, headers);
  expect(res.status).toBe(404);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.headers['content-security-policy']).toBe("default-src 'none'");
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.body).toContain('<html lang="en" dir="ltr">');
  expect(res.body).toContain('<h1>Not found</h1>');
  expect(res.body.replace(/<[^>]+>/g, '')).toMatch(reason);
  expect(res.body).toContain('Shown in test mode only');
  expect(res.body).toMatch(/<\/p><\/body><\/html>$/);
  return res.body;
}

describe('the not-found page in test mode', () => {
  it('when a test key frames a live form, or a live key a test form, then the page says the environments differ', async () => {
    const live = await createForm(api, { hosting: { enabled: true } });
    const test = await createForm(api, { hosting: { enabled: true } }, testAdmin());
    const testKey = await createPublishableKey(api, { environment: 'test' });
    const liveKey = await createPublishableKey(api, { environment: 'live' });
    await expectReason(embedded(live.id, testKey.value), /is a test key and this form is a live form.*Use a live key, or a test form/);
    await expectReason(embedded(test.id, liveKey.value), /is a live key and this form is a test form.*Use a test key\./);
  });

  it('when a test key is revoked, of another workspace, unknown, or the service’s own page key, then the page says which', async () => {
    const form = await createForm(api, { hosting: { enabled: true } }, testAdmin());
    const revoked = await createPublishableKey(api, { environment: 'test' });
    expect((await api.call('delete', `/v1/publishable_keys/${revoked.id}`, testAdmin())).status).toBe(200);
    const other = await api.otherWorkspace();
    const othersKey = await createPublishableKey(api, { environment: 'test' }, other.test_admin_key);
    const pageKey = /data-key="([^"]+)"/.exec((await getPage(`/f/${form.id}`)).body)![1]!;
    expect(pageKey).toMatch(/^svc_pub_test_/);

    await expectReason(embedded(form.id, revoked.value), /was revoked/);
    await expectReason(embedded(form.id, othersKey.value), /belongs to another workspace than this form/);
    await expectReason(embedded(form.id, `svc_pub_test_${'x'.repeat(24)}`), /is not one of your publishable keys: check its value/);
    await expectReason(embedded(form.id, 'svc_pub_test_mistyped'), /is not one of your publishable keys/);
    await expectReason(embedded(form.id, pageKey), /is not one of your publishable keys/);
  });

  it('when a test key is attached to another form or to a folder the form is not in, then the page says so; attached to its folder, it is served', async () => {
    const folder = await createFolder(api, 'Campaigns', testAdmin());
    const form = await createForm(api, { hosting: { enabled: true } }, testAdmin());
    const inFolder = await createForm(api, { hosting: { enabled: true }, folder_id: folder.id }, testAdmin());
    const toOther = await createPublishableKey(api, { environment: 'test', attachment: { type: 'form', form_id: inFolder.id } });
    const toFolder = await createPublishableKey(api, { environment: 'test', attachment: { type: 'folder', folder_id: folder.id } });
    await expectReason(embedded(form.id, toOther.value), /attached to another form/);
    await expectReason(embedded(form.id, toFolder.value), /attached to a folder this form is not in/);
    expect((await getPage(embedded(inFolder.id, toFolder.value))).status).toBe(200);
    expect((await getPage(embedded(inFolder.id, toOther.value))).status).toBe(200);
  });

  it('when a test form is not hosted, then its page says so, to anyone; a live one says so to a test key of its own workspace only', async () => {
    const test = await createForm(api, {}, testAdmin());
    const live = await createForm(api);
    const ownTestKey = await createPublishableKey(api, { environment: 'test' });
    const ownLiveKey = await createPublishableKey(api, { environment: 'live' });
    const other = await api.otherWorkspace();
    const othersTestKey = await createPublishableKey(api, { environment: 'test' }, other.test_admin_key);
    await expectReason(`/f/${test.id}`, /This form is not hosted: turn on its hosting\.enabled/);
    await expectReason(embedded(live.id, ownTestKey.value), /This form is not hosted/);
    const bare = await barePage();
    const bareFor = [
      `/f/${live.id}`,
      embedded(live.id, ownLiveKey.value),
      embedded(live.id, othersTestKey.value),
      `/f/${absentId('form')}?embed=${ownTestKey.value}`,
    ];
    for (const path of bareFor) {
      const res = await getPage(path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).toBe(bare);
    }
  });

  it('when a test key frames the page from an origin it does not allow, then the page names that origin; from one it allows, the page is served', async () => {
    const form = await createForm(api, { hosting: { enabled: true } }, testAdmin());
    const key = await createPublishableKey(api, {
      environment: 'test',
      allowed_origins: ['https://www.acme.example', 'http://localhost:3000'],
    });
    const body = await expectReason(
      embedded(form.id, key.value),
      /on https:\/\/elsewhere\.example, is not among the key's allowed_origins/,
      frameRequest('https://elsewhere.example'),
    );
    expect(body.replace(/<[^>]+>/g, '')).toContain('http://localhost and http://127.0.0.1 origins are for test keys only');
    // Without a Referer (a site's no-referrer policy), embed.js's parent_url tells the origin.
    const parentUrl = encodeURIComponent('https://elsewhere.example/pricing?utm_source=x');
    await expectReason(`${embedded(form.id, key.value)}&parent_url=${parentUrl}`, /on https:\/\/elsewhere\.example,/, {
      'Sec-Fetch-Dest': 'iframe',
    });

    for (const origin of ['https://www.acme.example', 'http://localhost:3000']) {
      const served = await getPage(embedded(form.id, key.value), frameRequest(origin));
      expect(served.status, origin).toBe(200);
      expect(served.headers['content-security-policy']).toMatch(/frame-ancestors https:\/\/www\.acme\.example http:\/\/localhost:3000$/);
    }
    // A plain-http origin the key does not allow is named like any other.
    await expectReason(embedded(form.id, key.value), /on http:\/\/localhost:4000, is not among/, frameRequest('http://localhost:4000'));
    // What names no web page's origin is no origin: the page is served, and frame-ancestors decides.
    const notOrigins = [
      `&parent_url=${encodeURIComponent('data:text/html,<p>hi</p>')}`,
      `&parent_url=${encodeURIComponent('https://elsewhere.example/')}&parent_url=x`,
      '&parent_url=not%20a%20url',
    ];
    for (const query of notOrigins) {
      const res = await getPage(`${embedded(form.id, key.value)}${query}`, { 'Sec-Fetch-Dest': 'iframe' });
      expect(res.status, query).toBe(200);
    }
    // Not a frame (the address opened in a tab): nothing to check, the page is served with its frame-ancestors.
    const opened = await getPage(embedded(form.id, key.value), { Referer: 'https://elsewhere.example/' });
    expect(opened.status).toBe(200);
  });
});

describe('the not-found page in live mode', () => {
  it('when a live form is framed with a live key that does not reach it, then the bare page of an unknown form, whatever the reason', async () => {
    const folder = await createFolder(api, 'Live campaigns');
    const form = await createForm(api, { hosting: { enabled: true } });
    const elsewhere = await createForm(api, { folder_id: folder.id });
    const revoked = await createPublishableKey(api, { environment: 'live' });
    expect((await api.call('delete', `/v1/publishable_keys/${revoked.id}`)).status).toBe(200);
    const other = await api.otherWorkspace();
    const othersKey = await createPublishableKey(api, { environment: 'live' }, other.live_admin_key);
    const toForm = await createPublishableKey(api, { environment: 'live', attachment: { type: 'form', form_id: elsewhere.id } });
    const toFolder = await createPublishableKey(api, { environment: 'live', attachment: { type: 'folder', folder_id: folder.id } });
    const bare = await barePage();
    expect(bare).toBe(
      '<!doctype html><html lang="en" dir="ltr"><head><meta charset="utf-8"><title>Not found</title></head>' +
        '<body><h1>Not found</h1><p>There is no form at this address.</p></body></html>',
    );
    const keys = [revoked.value, othersKey.value, toForm.value, toFolder.value, `svc_pub_live_${'x'.repeat(24)}`, 'not-a-key'];
    for (const key of keys) {
      const res = await getPage(embedded(form.id, key), frameRequest('https://elsewhere.example'));
      expect(res.status, key).toBe(404);
      expect(res.headers['content-security-policy']).toBe("default-src 'none'");
      expect(res.body, key).toBe(bare);
    }
  });

  it('when a live key frames the page from an origin it does not allow, then the page is served and the browser’s frame-ancestors refuses it, as before', async () => {
    const form = await createForm(api, { hosting: { enabled: true } });
    const key = await createPublishableKey(api, { environment: 'live' });
    const res = await getPage(embedded(form.id, key.value), frameRequest('https://elsewhere.example'));
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toMatch(/frame-ancestors https:\/\/www\.acme\.example$/);
  });
});
