/** A form's logo through the typed client: the file itself as the body, with its media type, never JSON. */
import { describe, expect, it } from 'vitest';
import { createFormFunnelClient, type FetchLike, ifMatch, setFormLogo, unwrap } from '../../src/client/index.js';
import { pngImage } from '../support/images.js';
import { FORM_ID, formBody, json } from './fake-transport.js';

const ETAG = '"Xb3Q9mKfT0aLr7Vw2sNc1e"';

/** A transport that keeps each request's method, URL, headers and body bytes, and answers with the form. */
function recordingTransport() {
  const sent: Array<{ method: string; url: string; headers: Headers; bytes: Buffer; signal: AbortSignal }> = [];
  const fetch: FetchLike = async (request) => {
    sent.push({
      method: request.method,
      url: request.url,
      headers: new Headers(request.headers),
      bytes: Buffer.from(await request.arrayBuffer()),
      signal: request.signal,
    });
    return json(200, formBody, { ETag: ETAG });
  };
  return { sent, client: createFormFunnelClient({ apiKey: 'svc_test_4eC39HqLyjWDarjtT1zdp7dc', fetch }) };
}

describe('setFormLogo', () => {
  it('when bytes are uploaded with their type, then the body is those bytes, as that type, to PUT /forms/{id}/logo', async () => {
    const { sent, client } = recordingTransport();
    const image = pngImage(32, 32);
    const form = unwrap(await setFormLogo(client, FORM_ID, image, { contentType: 'image/png' }));
    expect(form.id).toBe(FORM_ID);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'PUT', url: `https://api.form-funnel.example/v1/forms/${FORM_ID}/logo` });
    expect(sent[0]!.headers.get('Content-Type')).toBe('image/png');
    expect(sent[0]!.headers.get('Authorization')).toBe('Bearer svc_test_4eC39HqLyjWDarjtT1zdp7dc');
    expect(Buffer.compare(sent[0]!.bytes, image)).toBe(0);
  });

  it('when a Blob is uploaded, then its own type is the Content-Type, and If-Match from a read is sent', async () => {
    const { sent, client } = recordingTransport();
    const read = await client.GET('/forms/{id}', { params: { path: { id: FORM_ID } } });
    const image = pngImage(20, 20);
    await setFormLogo(client, FORM_ID, new Blob([image], { type: 'image/webp' }), { header: ifMatch(read) });
    expect(sent[1]!.headers.get('Content-Type')).toBe('image/webp');
    expect(sent[1]!.headers.get('If-Match')).toBe(ETAG);
    expect(Buffer.compare(sent[1]!.bytes, image)).toBe(0);
  });

  it('when an ArrayBuffer is given a type over a Blob’s, then the type given is sent', async () => {
    const { sent, client } = recordingTransport();
    await setFormLogo(client, FORM_ID, new Blob([pngImage(20, 20)], { type: 'image/png' }), { contentType: 'image/jpeg' });
    await setFormLogo(client, FORM_ID, new Uint8Array(pngImage(16, 16)).buffer, { contentType: 'image/png' });
    expect(sent.map((request) => request.headers.get('Content-Type'))).toEqual(['image/jpeg', 'image/png']);
    expect(sent[1]!.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('when the type is missing or not a logo’s, then it throws before sending anything', async () => {
    const { sent, client } = recordingTransport();
    expect(() => setFormLogo(client, FORM_ID, pngImage(16, 16))).toThrow(
      new TypeError('setFormLogo: a logo is sent as image/png, image/jpeg, image/webp; give contentType for bytes, or a Blob with a type.'),
    );
    expect(() => setFormLogo(client, FORM_ID, new Blob(['<svg/>'], { type: 'image/svg+xml' }))).toThrow(/got image\/svg\+xml/);
    expect(sent).toEqual([]);
  });

  it('when a signal is given, then the request carries it; without one, the request’s own never aborts', async () => {
    const { sent, client } = recordingTransport();
    const controller = new AbortController();
    await setFormLogo(client, FORM_ID, pngImage(16, 16), { contentType: 'image/png', signal: controller.signal });
    await setFormLogo(client, FORM_ID, pngImage(16, 16), { contentType: 'image/png' });
    controller.abort();
    expect(sent.map((request) => request.signal.aborted)).toEqual([true, false]);
  });
});
