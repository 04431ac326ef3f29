/**
 * A form's `welcome` and `ending` screens and its `language`: none, none and English unless set, every member filled
 * on the way out, versioned with the steps (a version keeps them, a restore brings them back), carried by
 * `form.updated` and by the public form, refused in words when the redirect address or the tag is not acceptable.
 */
import { describe, expect, it } from 'vitest';
import { createForm } from '../support/factories.js';
import { useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey } from '../support/publishable-keys.js';
import { recordingEvents } from './submissions-support.js';

const events = recordingEvents();
const api = useWatchedApi(() => ({ events: events.publisher }));

const welcome = { title: 'Willkommen', text: 'Zwei Minuten.\nDrei Fragen.', button_label: 'Los geht’s' };
const ending = { title: 'Danke!', redirect_url: 'https://www.acme.example/danke?ref={submission_id}&src=form' };

const publicFormOf = async (formId: string) => {
  const site = await createPublishableKey(api, { environment: 'live' });
  return api.call('get', `/v1/public/forms/${formId}`, site.value).set('Origin', 'https://www.acme.example');
};

describe('screens and language on forms', () => {
  it('when a form sets none, then it has no welcome, the page’s own ending, English and no logo, also for a page', async () => {
    const form = await createForm(api);
    expect(form).toMatchObject({ welcome: null, ending: null, language: 'en', logo: null });
    const page = await publicFormOf(form.id);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ welcome: null, ending: null, language: 'en', logo: null });
  });

  it('when a form is created with screens and a tag in any case, then the tag is canonical and omitted members are null', async () => {
    const form = await createForm(api, { welcome: { title: 'Hi' }, ending, language: 'pt-br' });
    expect(form.welcome).toEqual({ title: 'Hi', text: null, button_label: null });
    expect(form.ending).toEqual({ ...ending, text: null });
    expect(form.language).toBe('pt-BR');
    const read = await api.call('get', `/v1/forms/${form.id}`);
    expect(read.body).toMatchObject({ welcome: form.welcome, ending: form.ending, language: 'pt-BR' });
    const page = await publicFormOf(form.id);
    expect(page.body).toMatchObject({ welcome: form.welcome, ending: form.ending, language: 'pt-BR' });
  });

  it('when an update changes the screens and language, then a new version keeps them, the old one its own, and a restore brings those back', async () => {
    const form = await createForm(api, { welcome, language: 'de' });
    const res = await api.call('patch', `/v1/forms/${form.id}`).send({ welcome: null, ending, language: 'ar' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 2, welcome: null, ending: { ...ending, text: null }, language: 'ar' });
    const updated = events.published.find((event) => event.type === 'form.updated' && (event.data.object as { id: string }).id === form.id);
    expect(updated?.data.object).toMatchObject({ welcome: null, language: 'ar', ending: { title: 'Danke!' } });

    const first = await api.call('get', `/v1/forms/${form.id}/versions/1`);
    expect(first.body).toMatchObject({ welcome, ending: null, language: 'de' });
    const second = await api.call('get', `/v1/forms/${form.id}/versions/2`);
    expect(second.body).toMatchObject({ welcome: null, ending: { title: 'Danke!' }, language: 'ar' });

    const restored = await api.call('post', `/v1/forms/${form.id}/versions/1/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ version: 3, welcome, ending: null, language: 'de' });
  });

  it('when an update leaves the screens and language out, then they stay, and sending them unchanged publishes nothing', async () => {
    const form = await createForm(api, { welcome, ending, language: 'fr-CA' });
    const renamed = await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'Renamed' });
    expect(renamed.body).toMatchObject({ version: 2, welcome, language: 'fr-CA', ending: { title: 'Danke!' } });
    const same = await api.call('patch', `/v1/forms/${form.id}`).send({ welcome, ending, language: 'fr-ca' });
    expect(same.status).toBe(200);
    expect(same.body.version).toBe(2);
  });
});

describe('refusals', () => {
  const refusalOf = async (body: Record<string, unknown>) => {
    const res = await api.call('post', '/v1/forms').send({ name: 'Refused', ...body });
    return { status: res.status, code: res.body.code, errors: res.body.details?.errors };
  };

  it.each([
    ['a placeholder in the path', 'https://acme.example/{submission_id}/thanks'],
    ['a placeholder in the fragment', 'https://acme.example/thanks?a=1#{submission_id}'],
    ['another placeholder in the query', 'https://acme.example/thanks?ref={form_id}'],
    ['an unclosed brace', 'https://acme.example/thanks?ref={submission_id'],
    ['a stray closing brace', 'https://acme.example/thanks?ref=}'],
    ['credentials', 'https://user:secret@acme.example/thanks'],
    ['no host', 'https://'],
  ])('when the ending’s redirect address has %s, then 422 invalid_value names /ending/redirect_url', async (_case, redirect_url) => {
    const refusal = await refusalOf({ ending: { title: 'Thanks', redirect_url } });
    expect(refusal).toMatchObject({ status: 422, code: 'invalid_value' });
    expect(refusal.errors).toEqual([expect.objectContaining({ pointer: '/ending/redirect_url', code: 'invalid_redirect_url' })]);
  });

  it('when the redirect address is not https, then 400 names its pattern', async () => {
    const refusal = await refusalOf({ ending: { title: 'Thanks', redirect_url: 'http://acme.example/thanks' } });
    expect(refusal).toMatchObject({ status: 400, code: 'invalid_parameters' });
    // Only what is wrong with the address: not the null branch's "must be null" at the address or at the screen.
    expect(refusal.errors).toEqual([expect.objectContaining({ location: 'body', pointer: '/ending/redirect_url', code: 'pattern' })]);
  });

  it('when an update gives a redirect address with two placeholders in the query, then it is kept as written', async () => {
    const form = await createForm(api);
    const redirect_url = 'https://acme.example/t?a={submission_id}&b={submission_id}';
    const res = await api.call('patch', `/v1/forms/${form.id}`).send({ ending: { title: 'Thanks', redirect_url } });
    expect(res.status).toBe(200);
    expect(res.body.ending.redirect_url).toBe(redirect_url);
  });

  it.each(['de-DE-DE', 'de-1996-1996'])(
    'when the language %s passes the pattern but is not well formed, then 422 names /language',
    async (language) => {
      const refusal = await refusalOf({ language });
      expect(refusal).toMatchObject({ status: 422, code: 'invalid_value' });
      expect(refusal.errors).toEqual([expect.objectContaining({ pointer: '/language', code: 'invalid_language' })]);
    },
  );

  it.each(['xx', 'EN', 'sv', 'de_DE'])(
    'when the language is %s, outside the catalogue or misspelled, then 400 names /language',
    async (language) => {
      const refusal = await refusalOf({ language });
      expect(refusal).toMatchObject({ status: 400, code: 'invalid_parameters' });
      expect(JSON.stringify(refusal.errors)).toContain('/language');
    },
  );

  it('when a screen has an empty title or an unknown member, then 400 names each', async () => {
    const refusal = await refusalOf({ welcome: { title: '' }, ending: { title: 'x', colour: 'red' } });
    expect(refusal.status).toBe(400);
    expect(refusal.errors).toEqual([
      expect.objectContaining({ pointer: '/welcome/title', code: 'min_length' }),
      expect.objectContaining({ pointer: '/ending/colour', code: 'additional_property' }),
    ]);
  });

  it('when a request sets the logo through a form update, then 400: the logo has its own operation', async () => {
    const refusal = await refusalOf({ logo: null });
    expect(refusal.status).toBe(400);
    expect(JSON.stringify(refusal.errors)).toMatch(/logo/);
  });
});
