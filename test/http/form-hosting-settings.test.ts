/**
 * A form's `hosting` and `appearance`: off and default unless set, settable on create and update (each replaced
 * whole), carried by `form.updated`, not part of a version's snapshot, on both stores. The page's `url` is not
 * stored: it is built from the public base URL the service has when the form is read.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/types.js';
import { createForm } from '../support/factories.js';
import { createTestApi } from '../support/harness.js';
import { useWatchedApi } from '../support/http-checks.js';
import { recordingEvents } from './submissions-support.js';

const events = recordingEvents();
const api = useWatchedApi(() => ({ events: events.publisher }));

describe('hosting and appearance on forms', () => {
  it('when a form sets neither, then hosting is off without a url and the appearance is the default', async () => {
    const form = await createForm(api);
    expect(form.hosting).toEqual({ enabled: false, url: null });
    expect(form.appearance).toEqual({ accent_color: '#4338ca', font: 'system' });
  });

  it('when a form is created hosted and themed, then it has its page url and keeps both on every read', async () => {
    const form = await createForm(api, { hosting: { enabled: true }, appearance: { accent_color: '#0f766e', font: 'serif' } });
    expect(form.hosting).toEqual({ enabled: true, url: `https://localhost/f/${form.id}` });
    const read = await api.call('get', `/v1/forms/${form.id}`);
    expect(read.body).toMatchObject({ hosting: form.hosting, appearance: { accent_color: '#0f766e', font: 'serif' } });
  });

  it('when an update turns hosting off and sets only the font, then url is null and the colour is back to its default', async () => {
    const form = await createForm(api, { hosting: { enabled: true }, appearance: { accent_color: '#0f766e' } });
    const res = await api.call('patch', `/v1/forms/${form.id}`).send({ hosting: { enabled: false }, appearance: { font: 'serif' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      version: 2,
      hosting: { enabled: false, url: null },
      appearance: { accent_color: '#4338ca', font: 'serif' },
    });
    const updated = events.published.find((event) => event.type === 'form.updated' && (event.data.object as { id: string }).id === form.id);
    expect(updated?.data.object).toMatchObject({ hosting: { enabled: false, url: null }, appearance: { font: 'serif' } });
    const version = await api.call('get', `/v1/forms/${form.id}/versions/1`);
    expect(version.status).toBe(200);
    expect(version.body).not.toHaveProperty('hosting');
    expect(version.body).not.toHaveProperty('appearance');
  });

  it('when a request sets the url or an unknown colour format, then 400 names each', async () => {
    const res = await api
      .call('post', '/v1/forms')
      .send({ name: 'Bad', hosting: { enabled: true, url: 'https://evil.example' }, appearance: { accent_color: 'red' } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.details.errors)).toMatch(/hosting/);
    expect(JSON.stringify(res.body.details.errors)).toMatch(/accent_color/);
  });
});

describe('the page’s address follows the public base URL', () => {
  const moved = recordingEvents();
  const before = useWatchedApi(() => ({ events: moved.publisher, publicBaseUrl: 'https://forms.acme.example' }));

  /** The same store, served by a second app: closing it must leave the store to the first. */
  const sharedStore = (store: Store): Store =>
    new Proxy(store, { get: (target, name) => (name === 'close' ? async () => {} : Reflect.get(target, name)) });

  it('when two apps with different public base URLs serve one store, then each reads, updates and announces the same hosted form at its own address', async () => {
    const form = await createForm(before, { hosting: { enabled: true } });
    expect(form.hosting.url).toBe(`https://forms.acme.example/f/${form.id}`);
    const after = await createTestApi({
      store: sharedStore(before.store),
      events: moved.publisher,
      publicBaseUrl: 'https://acme.example:9443/',
    });
    try {
      const key = before.workspace.live_admin_key;
      const read = await after.call('get', `/v1/forms/${form.id}`, key);
      expect(read.status).toBe(200);
      expect(read.body.hosting).toEqual({ enabled: true, url: `https://acme.example:9443/f/${form.id}` });
      expect((await before.call('get', `/v1/forms/${form.id}`)).body.hosting.url).toBe(`https://forms.acme.example/f/${form.id}`);

      // An update that leaves hosting as it was answers, and tells webhooks, the address of now.
      const renamed = await after.call('patch', `/v1/forms/${form.id}`, key).send({ name: 'Renamed' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.hosting.url).toBe(`https://acme.example:9443/f/${form.id}`);
      const updated = moved.published.find(
        (event) => event.type === 'form.updated' && (event.data.object as { id: string }).id === form.id,
      );
      expect((updated!.data.object as { hosting: unknown }).hosting).toEqual({
        enabled: true,
        url: `https://acme.example:9443/f/${form.id}`,
      });
      const restored = await after.call('post', `/v1/forms/${form.id}/versions/1/restore`, key);
      expect(restored.body.hosting.url).toBe(`https://acme.example:9443/f/${form.id}`);
    } finally {
      await after.close();
    }
  });

  it('when a hosted form is stored, then only that hosting is on is kept, and an address a row still carries is not read', async () => {
    const form = await createForm(before, { hosting: { enabled: true } });
    const [row] = await before.rows('SELECT definition FROM forms WHERE id = ?', form.id);
    expect(JSON.parse(row!.definition as string).hosting).toEqual({ enabled: true });

    // A row written when the address was stored with the form.
    const stale = { ...JSON.parse(row!.definition as string), hosting: { enabled: true, url: 'https://old.acme.example/f/x' } };
    await before.rows('UPDATE forms SET definition = ? WHERE id = ?', JSON.stringify(stale), form.id);
    expect((await before.call('get', `/v1/forms/${form.id}`)).body.hosting.url).toBe(`https://forms.acme.example/f/${form.id}`);
  });
});
