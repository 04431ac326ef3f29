/**
 * A form's logo: uploaded with PUT /v1/forms/{id}/logo as the image file itself, checked by its bytes, served without
 * a key under its content hash while the form names it, removed with DELETE, on both stores.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import request, { type Test } from 'supertest';
import { describe, expect, it } from 'vitest';
import { StoreUnavailable } from '../../src/store/errors.js';
import { createForm, type Form } from '../support/factories.js';
import { createTestApi } from '../support/harness.js';
import { expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { jpegImage, pngImage, simpleWebpImage, svgImage, webpImage } from '../support/images.js';
import { moveForm } from '../support/transfers.js';
import { recordingEvents } from './submissions-support.js';

const events = recordingEvents();
const logLines: Array<Record<string, unknown>> = [];
// The file sends well over the default 100 requests a second with one key on a fast store: limits are tested elsewhere.
const api = useWatchedApi(() => ({
  rateLimits: generousLimits,
  events: events.publisher,
  publicBaseUrl: 'https://forms.acme.example',
  logger: pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) }),
}));

type Logo = NonNullable<Form['logo']>;

const upload = (formId: string, bytes: Buffer, contentType: string, key?: string) =>
  api.call('put', `/v1/forms/${formId}/logo`, key).set('Content-Type', contentType).send(bytes);

/** A request for a logo's address on this server (the URL names the public base URL, which is not this server). */
const fetchLogo = (url: string) => {
  const path = new URL(url).pathname;
  return request(api.baseUrl).get(path).trustLocalhost().ca(api.certificate).buffer(true).parse(binaryParser);
};
const binaryParser: Extract<Parameters<Test['parse']>[0], (res: never, done: never) => void> = (res, done) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const updatesOf = (formId: string) =>
  events.published.filter((event) => event.type === 'form.updated' && (event.data.object as { id: string }).id === formId);
const storedImages = async (formId: string) =>
  (await api.rows('SELECT sha256 FROM form_logos WHERE form_id = ?', formId)).map((row) => row.sha256);

describe('setting a logo', () => {
  it('when a PNG is uploaded, then the form names it with its hash and dimensions, in a new version with a new ETag and form.updated', async () => {
    const form = await createForm(api);
    const read = await api.call('get', `/v1/forms/${form.id}`);
    const image = pngImage(64, 32);
    const res = await upload(form.id, image, 'image/png');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const logo: Logo = {
      url: `https://forms.acme.example/f/${form.id}/logo/${sha256(image)}.png`,
      content_type: 'image/png',
      width: 64,
      height: 32,
      size: image.length,
    };
    expect(res.body).toMatchObject({ id: form.id, version: 2, logo, steps: form.steps });
    expect(res.headers.etag).toBeDefined();
    expect(res.headers.etag).not.toBe(read.headers.etag);
    const again = await api.call('get', `/v1/forms/${form.id}`);
    expect(again.body.logo).toEqual(logo);
    expect(again.headers.etag).toBe(res.headers.etag);
    const { request_id: _, ...updated } = res.body;
    expect(updatesOf(form.id).map((event) => event.data)).toEqual([{ object: updated, previous_version: 1 }]);
  });

  it('when the logo is served, then it is the uploaded bytes, as an image that runs nothing, cached for good', async () => {
    const form = await createForm(api);
    const image = pngImage(48, 48);
    const { logo } = (await upload(form.id, image, 'image/png')).body as Form;
    const served = await fetchLogo(logo!.url);
    expect(served.status).toBe(200);
    expect(Buffer.compare(served.body, image)).toBe(0);
    expect(served.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': String(image.length),
      'x-content-type-options': 'nosniff',
      'cache-control': 'public, max-age=31536000, immutable',
      'content-security-policy': "default-src 'none'",
      etag: `"${sha256(image)}"`,
    });
    expect(served.headers).not.toHaveProperty('set-cookie');
    const revalidated = await fetchLogo(logo!.url).set('If-None-Match', `"${sha256(image)}"`);
    expect(revalidated.status).toBe(304);
  });

  it.each([
    ['image/jpeg', jpegImage(), 'jpg'],
    ['image/webp', webpImage(), 'webp'],
    ['image/webp', simpleWebpImage(), 'webp'],
  ])('when a %s file is uploaded, then its dimensions are read from it and it is served as %s', async (type, image, extension) => {
    const form = await createForm(api);
    const res = await upload(form.id, image, type);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.logo).toEqual({
      url: `https://forms.acme.example/f/${form.id}/logo/${sha256(image)}.${extension}`,
      content_type: type,
      width: 40,
      height: 24,
      size: image.length,
    });
    const served = await fetchLogo(res.body.logo.url);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe(type);
    expect(Buffer.compare(served.body, image)).toBe(0);
  });

  it('when the same image is uploaded again, then the form is unchanged: same version and ETag, no event', async () => {
    const form = await createForm(api);
    const first = await upload(form.id, pngImage(32, 32), 'image/png');
    const second = await upload(form.id, pngImage(32, 32), 'image/png');
    expect(second.status).toBe(200);
    expect({ ...second.body, request_id: undefined }).toEqual({ ...first.body, request_id: undefined });
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(updatesOf(form.id)).toHaveLength(1);
    expect((await api.call('get', `/v1/forms/${form.id}/versions`)).body.data).toHaveLength(2);
  });

  it('when another image replaces the logo, then the old address is 404 and only the new image is kept', async () => {
    const form = await createForm(api);
    const old = (await upload(form.id, pngImage(32, 32, 1), 'image/png')).body as Form;
    const replaced = await upload(form.id, jpegImage(), 'image/jpeg');
    expect(replaced.body).toMatchObject({ version: 3, logo: { content_type: 'image/jpeg' } });
    const gone = await fetchLogo(old.logo!.url);
    expect(gone.status).toBe(404);
    expect(gone.headers['cache-control']).toBe('no-store');
    expect((await fetchLogo(replaced.body.logo.url)).status).toBe(200);
    expect(await storedImages(form.id)).toEqual([sha256(jpegImage())]);
  });

  it('when the address names the right hash with another extension, or a hash of another form, or is not exactly it, then 404', async () => {
    const form = await createForm(api);
    const other = await createForm(api);
    const { logo } = (await upload(form.id, pngImage(20, 20), 'image/png')).body as Form;
    const url = logo!.url;
    for (const address of [
      url.replace(/\.png$/, '.jpg'),
      url.replace(form.id, other.id),
      url.replace(/\.png$/, '.PNG'),
      url.replace('/logo/', '/logo/x'),
      `${url}.gz`,
      `https://forms.acme.example/f/${form.id}/logo/nothing.png`,
    ]) {
      const res = await fetchLogo(address);
      expect({ address, status: res.status }).toEqual({ address, status: 404 });
      expect(res.headers).toMatchObject({
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'",
      });
    }
    // Paths are case-sensitive: no image route has this one.
    expect((await fetchLogo(url.replace('/logo/', '/Logo/'))).status).toBe(404);
    const missing = await fetchLogo(url.replace(/\.png$/, '.jpg'));
    expect(missing.body.toString('utf8')).toBe('No image is at this address.\n');
  });

  it('when an image is kept for the form but not named by it (an upload whose update failed), then its address is 404', async () => {
    const form = await createForm(api);
    const { logo } = (await upload(form.id, pngImage(20, 20), 'image/png')).body as Form;
    const staged = pngImage(20, 20, 9);
    await api.store.formLogos.stage(api.workspace.workspace_id, form.id, {
      sha256: sha256(staged),
      contentType: 'image/png',
      bytes: staged,
      createdAt: new Date().toISOString(),
    });
    expect((await fetchLogo(logo!.url.replace(/[0-9a-f]{64}/, sha256(staged)))).status).toBe(404);
    expect((await fetchLogo(logo!.url)).status).toBe(200);
  });

  it('when a page of any site shows the logo, then it may: the image is a cross-origin resource', async () => {
    const form = await createForm(api);
    const { logo } = (await upload(form.id, pngImage(20, 20), 'image/png')).body as Form;
    expect((await fetchLogo(logo!.url)).headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('when the form is updated or a version restored, then the logo stays and versions do not carry it', async () => {
    const form = await createForm(api);
    const { logo } = (await upload(form.id, pngImage(20, 20, 2), 'image/png')).body as Form;
    const renamed = await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'Renamed with logo' });
    expect(renamed.body.logo).toEqual(logo);
    const restored = await api.call('post', `/v1/forms/${form.id}/versions/1/restore`);
    expect(restored.body).toMatchObject({ version: 4, logo });
    expect((await fetchLogo(logo!.url)).status).toBe(200);
    expect((await api.call('get', `/v1/forms/${form.id}/versions/2`)).body).not.toHaveProperty('logo');
  });

  it('when the If-Match names the form as read, then the logo is set; a stale one gets 412 and nothing changes', async () => {
    const form = await createForm(api);
    const read = await api.call('get', `/v1/forms/${form.id}`);
    await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'Changed meanwhile' });
    const stale = await upload(form.id, pngImage(20, 20), 'image/png').set('If-Match', read.headers.etag!);
    expectProblem(stale, 412, 'conflict_error', 'precondition_failed');
    expect((await api.call('get', `/v1/forms/${form.id}`)).body).toMatchObject({ version: 2, logo: null });
    const current = await api.call('get', `/v1/forms/${form.id}`);
    const set = await upload(form.id, pngImage(20, 20), 'image/png').set('If-Match', current.headers.etag!);
    expect(set.status).toBe(200);
    const removeStale = await api.call('delete', `/v1/forms/${form.id}/logo`).set('If-Match', current.headers.etag!);
    expectProblem(removeStale, 412, 'conflict_error', 'precondition_failed');
  });
});

/**
 * Runs `first` once, just before the next call of the store's `method`: the request that calls it has read the form
 * and not yet written it. The method is restored after that call.
 */
function beforeNextWrite(area: 'forms' | 'formLogos', method: string, first: () => Promise<unknown>): void {
  const target = api.store[area] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = target[method]!;
  target[method] = async (...args: unknown[]) => {
    target[method] = original;
    await first();
    return original.apply(target, args);
  };
}

describe('when the form changes between the read and the write', () => {
  const rename =
    (formId: string, name = 'Renamed meanwhile') =>
    async () => {
      expect((await api.call('patch', `/v1/forms/${formId}`).send({ name })).status).toBe(200);
    };

  it('then an upload with If-Match gets 412 naming the form and changes nothing; without, it is made on the form as it now is', async () => {
    const form = await createForm(api);
    const read = await api.call('get', `/v1/forms/${form.id}`);
    beforeNextWrite('formLogos', 'stage', rename(form.id));
    const refused = await upload(form.id, pngImage(20, 20), 'image/png').set('If-Match', read.headers.etag!);
    expectProblem(refused, 412, 'conflict_error', 'precondition_failed');
    expect(refused.body.message).toContain(`The form ${form.id} has changed`);
    expect((await api.call('get', `/v1/forms/${form.id}`)).body).toMatchObject({ version: 2, logo: null, name: 'Renamed meanwhile' });

    const other = await createForm(api);
    beforeNextWrite('formLogos', 'stage', rename(other.id));
    const made = await upload(other.id, pngImage(20, 20), 'image/png');
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ version: 3, name: 'Renamed meanwhile', logo: { width: 20 } });
  });

  it('then a removal with If-Match gets 412 naming the form and keeps the logo; without, it is made on the form as it now is', async () => {
    const form = await createForm(api);
    const set = await upload(form.id, pngImage(20, 20), 'image/png');
    beforeNextWrite('forms', 'update', rename(form.id));
    const refused = await api.call('delete', `/v1/forms/${form.id}/logo`).set('If-Match', set.headers.etag!);
    expectProblem(refused, 412, 'conflict_error', 'precondition_failed');
    expect(refused.body.message).toContain(`The form ${form.id} has changed`);
    expect((await api.call('get', `/v1/forms/${form.id}`)).body).toMatchObject({ version: 3, logo: { width: 20 } });

    beforeNextWrite('forms', 'update', rename(form.id, 'Renamed again'));
    const removed = await api.call('delete', `/v1/forms/${form.id}/logo`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ version: 5, name: 'Renamed again', logo: null });
  });
});

describe('refused uploads', () => {
  const expectInvalidImage = (res: request.Response, message: RegExp) => {
    expectProblem(res, 422, 'validation_error', 'invalid_image');
    expect(res.body.message).toMatch(message);
    expect(res.body.details.errors).toEqual([expect.objectContaining({ location: 'body', pointer: '', code: 'invalid_image' })]);
  };

  it.each([
    [
      'a PNG sent as image/jpeg',
      () => pngImage(32, 32),
      'image/jpeg',
      /a PNG image, not a JPEG image as its Content-Type says: send it with Content-Type image\/png/,
    ],
    ['a JPEG sent as image/webp', jpegImage, 'image/webp', /a JPEG image, not a WebP image/],
    ['an SVG sent as image/png', svgImage, 'image/png', /SVG image, which is never taken/],
    ['an SVG sent as image/webp', svgImage, 'image/webp', /SVG image, which is never taken/],
    ['a 15x15 image', () => pngImage(15, 15), 'image/png', /15x15 pixels; a logo is between 16 and 2048 pixels wide and high/],
    ['a 2049x16 image', () => pngImage(2049, 16), 'image/png', /2049x16 pixels/],
    ['a 16x2049 image', () => pngImage(16, 2049), 'image/png', /16x2049 pixels/],
    ['a truncated PNG', () => pngImage(64, 64).subarray(0, 60), 'image/png', /not a whole PNG image/],
    ['a truncated JPEG', () => jpegImage().subarray(0, 900), 'image/jpeg', /not a whole JPEG image/],
    ['a truncated WebP', () => webpImage().subarray(0, 700), 'image/webp', /not a whole WebP image/],
    [
      'a PNG with a page appended',
      () => Buffer.concat([pngImage(32, 32), Buffer.from('<html><script>1</script>')]),
      'image/png',
      /not a whole PNG/,
    ],
    ['text', () => Buffer.from('not an image at all'), 'image/png', /not a PNG image, as its Content-Type says/],
  ])('when %s is uploaded, then 422 invalid_image says what it is, and the form is unchanged', async (_name, image, type, message) => {
    const form = await createForm(api);
    expectInvalidImage(await upload(form.id, image(), type), message);
    expect((await api.call('get', `/v1/forms/${form.id}`)).body).toMatchObject({ version: 1, logo: null });
    expect(await storedImages(form.id)).toEqual([]);
  });

  it('when the body is empty, then 422 invalid_image says so', async () => {
    const form = await createForm(api);
    expectInvalidImage(await upload(form.id, Buffer.alloc(0), 'image/png'), /The body is empty/);
  });

  it.each(['image/svg+xml', 'image/gif', 'application/octet-stream', 'application/json'])(
    'when the body is sent as %s, then 415 names the three image types',
    async (type) => {
      const form = await createForm(api);
      const res = await upload(form.id, pngImage(32, 32), type);
      expectProblem(res, 415, 'invalid_request', 'unsupported_media_type');
      expect(res.body.message).toBe('Send the request body as image/png, image/jpeg or image/webp.');
    },
  );

  it('when the body is larger than 262144 bytes, then 413 with that limit, whether its length is declared or found on decompression', async () => {
    const form = await createForm(api);
    const large = Buffer.concat([pngImage(32, 32), Buffer.alloc(262_144)]);
    const declared = await upload(form.id, large, 'image/png');
    expectProblem(declared, 413, 'invalid_request', 'payload_too_large');
    expect(declared.body).toMatchObject({ message: 'The request body is larger than 262144 bytes.', details: { max_body_bytes: 262_144 } });
    const inflated = await upload(form.id, gzipSync(large), 'image/png').set('Content-Encoding', 'gzip');
    expectProblem(inflated, 413, 'invalid_request', 'payload_too_large');
    expect(inflated.body.details).toEqual({ max_body_bytes: 262_144 });
    const json = await api.call('post', '/v1/forms').send({ name: 'x'.repeat(300_000) });
    expect(json.status).toBe(400);
  });

  it('when a gzipped image of allowed size is uploaded, then it is taken as the image itself', async () => {
    const form = await createForm(api);
    const image = pngImage(100, 100);
    const res = await upload(form.id, gzipSync(image), 'image/png').set('Content-Encoding', 'gzip');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.logo).toMatchObject({ size: image.length, width: 100, height: 100 });
  });
});

describe('who may set and remove a logo', () => {
  it('when a read key sets or removes a logo, then 403 insufficient_scope', async () => {
    const form = await createForm(api);
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    expectProblem(await upload(form.id, pngImage(20, 20), 'image/png', key.secret), 403, 'permission_error', 'insufficient_scope');
    const remove = await api.call('delete', `/v1/forms/${form.id}/logo`, key.secret);
    expectProblem(remove, 403, 'permission_error', 'insufficient_scope');
  });

  it('when a test key sets or removes a live form’s logo, then 403 live_resource and the form is unchanged; its test forms it may', async () => {
    const live = await createForm(api);
    await upload(live.id, pngImage(20, 20), 'image/png');
    const testKey = api.workspace.test_admin_key;
    expectProblem(await upload(live.id, pngImage(24, 24), 'image/png', testKey), 403, 'permission_error', 'live_resource');
    expectProblem(await api.call('delete', `/v1/forms/${live.id}/logo`, testKey), 403, 'permission_error', 'live_resource');
    expect((await api.call('get', `/v1/forms/${live.id}`)).body).toMatchObject({ version: 2, logo: { width: 20 } });
    const test = await createForm(api, {}, testKey);
    const res = await upload(test.id, pngImage(24, 24), 'image/png', testKey);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ test: true, logo: { width: 24 } });
  });

  it('when a key attached to the form sets its logo, then it may', async () => {
    const form = await createForm(api);
    const key = await api.createKey({ environment: 'live', scope: 'read_write', attachment: { type: 'form', form_id: form.id } });
    expect((await upload(form.id, pngImage(20, 20), 'image/png', key.secret)).status).toBe(200);
    expect((await api.call('delete', `/v1/forms/${form.id}/logo`, key.secret)).status).toBe(200);
  });

  it('when the logo is read or posted at its API path, then 405 names PUT and DELETE', async () => {
    const form = await createForm(api);
    for (const method of ['get', 'post'] as const) {
      const res = await api.call(method, `/v1/forms/${form.id}/logo`);
      expectProblem(res, 405, 'invalid_request', 'method_not_allowed');
      expect(res.headers.allow).toBe('DELETE, PUT');
      expect(res.body.details).toEqual({ allowed_methods: ['DELETE', 'PUT'] });
    }
  });

  it('when the form does not exist, then 404 resource_not_found', async () => {
    const res = await upload('form_000000000000000000000000', pngImage(20, 20), 'image/png');
    expectProblem(res, 404, 'not_found', 'resource_not_found');
  });
});

describe('removing a logo', () => {
  it('when the logo is removed, then logo is null in a new version with form.updated, and its address is 404; again changes nothing', async () => {
    const form = await createForm(api);
    const set = (await upload(form.id, pngImage(20, 20), 'image/png')).body as Form;
    const removed = await api.call('delete', `/v1/forms/${form.id}/logo`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id: form.id, version: 3, logo: null });
    expect(updatesOf(form.id).at(-1)?.data).toMatchObject({ object: { version: 3, logo: null }, previous_version: 2 });
    expect((await fetchLogo(set.logo!.url)).status).toBe(404);
    expect(await storedImages(form.id)).toEqual([]);
    const again = await api.call('delete', `/v1/forms/${form.id}/logo`);
    expect(again.body).toMatchObject({ version: 3, logo: null });
    expect(again.headers.etag).toBe(removed.headers.etag);
    expect(updatesOf(form.id)).toHaveLength(2);
  });
});

describe('when the image cannot be sent', () => {
  const replaceOnce = (failure: Error) => {
    const original = api.store.formLogos.get;
    api.store.formLogos.get = async () => {
      api.store.formLogos.get = original;
      throw failure;
    };
  };

  it('when the database is away, then 503 with Retry-After, as plain text that is not kept', async () => {
    const form = await createForm(api);
    const { logo } = (await upload(form.id, pngImage(20, 20), 'image/png')).body as Form;
    replaceOnce(new StoreUnavailable('connection_lost'));
    const res = await fetchLogo(logo!.url);
    expect(res.status).toBe(503);
    expect(res.headers).toMatchObject({ 'retry-after': '1', 'cache-control': 'no-store', 'content-type': 'text/plain; charset=utf-8' });
    expect(res.body.toString('utf8')).toBe('The image cannot be sent just now; retry in a moment.\n');
    expect(logLines.find((line) => line.request_id === res.headers['x-request-id'] && line.level === 40)).toMatchObject({
      level: 40,
      msg: 'store unavailable',
      request_id: res.headers['x-request-id'],
      reason: 'connection_lost',
      err: { message: 'The database connection was lost or refused.' },
    });
  });

  it('when something else fails, then 500 naming the request, and nothing of the failure', async () => {
    const form = await createForm(api);
    const { logo } = (await upload(form.id, pngImage(20, 20), 'image/png')).body as Form;
    replaceOnce(new Error('SELECT bytes FROM form_logos at /srv/app/src/store.ts:1'));
    const res = await fetchLogo(logo!.url);
    expect(res.status).toBe(500);
    expect(res.body.toString('utf8')).toBe(`Something went wrong on our side; request ${res.headers['x-request-id']}.\n`);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(logLines.find((line) => line.request_id === res.headers['x-request-id'] && line.level === 50)).toMatchObject({
      level: 50,
      msg: 'unhandled error',
      request_id: res.headers['x-request-id'],
      err: { message: 'SELECT bytes FROM form_logos at /srv/app/src/store.ts:1' },
    });
  });

  it('when an address asks for more images than its limit allows, then 429 with Retry-After, as plain text', async () => {
    const limited = await createTestApi({ rateLimits: { ...generousLimits, publicPerAddressPerMinute: 2 } });
    try {
      const form = await createForm(limited);
      const set = await limited.call('put', `/v1/forms/${form.id}/logo`).set('Content-Type', 'image/png').send(pngImage(20, 20));
      const path = new URL(set.body.logo.url).pathname;
      const get = () => request(limited.baseUrl).get(path).trustLocalhost().ca(limited.certificate);
      expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(200);
      const refused = await get();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(refused.text).toMatch(/retry after \d+ seconds?\.\n$/);
    } finally {
      await limited.close();
    }
  });
});

describe('the image goes with its form', () => {
  it('when the form is deleted, then its logo address is 404 and its images are gone', async () => {
    const form = await createForm(api);
    const { logo } = (await upload(form.id, pngImage(20, 20), 'image/png')).body as Form;
    expect((await api.call('delete', `/v1/forms/${form.id}`)).status).toBe(200);
    expect((await fetchLogo(logo!.url)).status).toBe(404);
    expect(await storedImages(form.id)).toEqual([]);
  });

  it('when test data is reset, then the test forms’ images are deleted and the live forms’ kept', async () => {
    const testKey = api.workspace.test_admin_key;
    const test = await createForm(api, {}, testKey);
    const live = await createForm(api);
    await upload(test.id, pngImage(20, 20), 'image/png', testKey);
    await upload(live.id, pngImage(21, 21), 'image/png');
    expect((await api.call('delete', '/v1/test_data', testKey)).status).toBe(200);
    expect(await storedImages(test.id)).toEqual([]);
    expect(await storedImages(live.id)).toHaveLength(1);
  });

  it('when the form is transferred, then it keeps its logo at the same address', async () => {
    const form = await createForm(api);
    const { logo } = (await upload(form.id, pngImage(20, 20), 'image/png')).body as Form;
    const other = await api.otherWorkspace();
    await moveForm(api, form.id, other);
    const read = await api.call('get', `/v1/forms/${form.id}`, other.live_admin_key);
    expect(read.body.logo).toEqual(logo);
    expect((await fetchLogo(logo!.url)).status).toBe(200);
  });
});
