/**
 * The builder's settings of the hosted page, in Chromium, as an editor sets them: a welcome screen, an ending that
 * sends the respondent on, and German, mostly by keyboard; the API's refusals of a redirect address shown at its
 * input with the draft kept; then a logo uploaded (its refusals said in words beside the file input, a stale ETag
 * refused) and removed. After each, the API's form carries exactly that. A regional language and a logo set by someone
 * else are named when the editor's publish is refused as stale, and the tag is shown and kept after Reload; a viewer
 * sees the settings without any control to change them. Each state is checked with axe at 1440 and 360 px, and every
 * request the dashboard made is one of the contract's operations.
 *
 * With DASHBOARD_SCREENSHOTS=<dir>, the new sections are saved at both widths for a person to look at.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { defaultLanguage } from '../../src/dashboard/forms/draft.js';
import { languageOptions } from '../../src/dashboard/forms/languages.js';
import { logoLimits, logoTypes } from '../../src/dashboard/forms/logo-limits.js';
import { pageLanguages } from '../../src/hosted/languages.js';
import { type SignedIn, screenHeading, useDashboard, writesOf } from '../support/dashboard-browser.js';
import { checkAgainstContract } from '../support/documented-requests.js';
import { pngImage } from '../support/images.js';

const dashboard = useDashboard();
const screenshots = process.env.DASHBOARD_SCREENSHOTS;
if (screenshots) mkdirSync(screenshots, { recursive: true });

/** axe finds nothing at 1440 px and at 360 px, where the page does not scroll sideways either. */
async function expectAccessibleAtBothWidths(page: Page): Promise<void> {
  expect(await dashboard.axeViolations(page)).toEqual([]);
  await page.setViewportSize({ width: 360, height: 800 });
  expect(await dashboard.axeViolations(page)).toEqual([]);
  expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** With DASHBOARD_SCREENSHOTS set, the sections at 1440 and 360 px, as `<name>-1440.png` and `<name>-360.png`. */
async function photograph(page: Page, name: string, sections: Locator[]): Promise<void> {
  if (!screenshots) return;
  for (const width of [1440, 360]) {
    await page.setViewportSize({ width, height: 900 });
    for (const [index, section] of sections.entries()) {
      await section.scrollIntoViewIfNeeded();
      await section.screenshot({ path: join(screenshots, `${name}${sections.length > 1 ? `-${index + 1}` : ''}-${width}.png`) });
    }
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

// Run in the page, reaching the document through the element: the test program has no DOM library.
const hasFocus = (element: Locator) => element.evaluate((node) => node === node.ownerDocument.activeElement);
/** The text of the elements that `aria-describedby` names, as a screen reader reads it with the control. */
const descriptionOf = (element: Locator) =>
  element.evaluate((node) =>
    (node.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id: string) => node.ownerDocument.getElementById(id)?.textContent ?? '')
      .join(' '),
  );

/** The builder's preview frame while it shows `screen` ("step 1", "the welcome screen"). */
const preview = (page: Page, screen: string) => page.frameLocator(`iframe[title="Preview of ${screen}, as respondents see it"]`);
const section = (page: Page, name: string) => page.getByRole('region', { name, exact: true });
const published = (page: Page, version: number) =>
  page
    .getByRole('status')
    .filter({ hasText: `Published version ${version}.` })
    .waitFor();

async function addMember(email: string, role: 'editor' | 'viewer'): Promise<void> {
  await dashboard.api.store.team.addMember(dashboard.api.workspace.workspace_id, {
    id: `mem_${randomBytes(12).toString('hex')}`,
    object: 'member',
    email,
    name: null,
    role,
    created_at: new Date().toISOString(),
  });
}

const form = async (id: string) => {
  const res = await dashboard.api.call('get', `/v1/forms/${id}`);
  expect(res.status).toBe(200);
  return res.body;
};

const openApiSchema = (name: string) => parse(readFileSync(`openapi/components/schemas/${name}.yaml`, 'utf8'));

describe('the builder knows what the contract says of a form page', () => {
  it('when the language select is made, then it offers the contract’s languages, by their own names', () => {
    const language = openApiSchema('FormLanguage');
    const primaries = /^\^\(([a-z|]+)\)/.exec(language.pattern)?.[1]?.split('|');
    expect([...pageLanguages]).toEqual(primaries);
    expect(language.default).toBe(defaultLanguage);
    // Node's ICU names them as Chromium's does.
    const labels = languageOptions('en').map((option) => option.label);
    expect(labels).toContain('Deutsch — German');
    expect(labels).toContain('العربية — Arabic');
    expect(labels).toContain('English');
    expect(languageOptions('pt-BR').map((option) => option.value)).toEqual([...pageLanguages, 'pt-BR']);
  });

  it('when the logo input is made, then its types and limits are FormLogo’s', () => {
    const logo = openApiSchema('FormLogo');
    expect(Object.keys(logoTypes)).toEqual(logo.properties.content_type.enum);
    expect(logoLimits).toEqual({
      maxBytes: logo.properties.size.maximum,
      minPixels: logo.properties.width.minimum,
      maxPixels: logo.properties.width.maximum,
    });
    expect([logo.properties.height.minimum, logo.properties.height.maximum]).toEqual([logoLimits.minPixels, logoLimits.maxPixels]);
  });
});

describe('the form page settings in the builder', () => {
  let editor: SignedIn;
  let formId: string;

  it('when an editor sets a welcome screen, an ending with a bad redirect, then German, the API’s issues show at the input until fixed', async () => {
    const created = await dashboard.api.call('post', '/v1/forms').send({
      name: 'Demo request',
      steps: [{ id: 'step_1', title: 'Contact', fields: [{ type: 'email', ref: 'email', label: 'Email' }] }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    formId = created.body.id;
    await addMember('eddie@acme.test', 'editor');
    editor = await dashboard.signIn('eddie@acme.test', { path: `forms/${formId}` });
    const { page } = editor;
    await screenHeading(page, 'Demo request');
    expect(await page.getByLabel('Language', { exact: true }).inputValue()).toBe('en');
    expect(await page.getByRole('img', { name: "The form's current logo" }).count()).toBe(0);

    // The welcome screen by keyboard: Space turns it on and puts the caret in its title.
    const welcome = section(page, 'Welcome screen');
    await welcome.getByLabel('Show a welcome screen', { exact: true }).focus();
    await page.keyboard.press('Space');
    const welcomeTitle = welcome.getByLabel('Welcome title', { exact: true });
    await expect.poll(() => hasFocus(welcomeTitle)).toBe(true);
    await page.keyboard.type('Willkommen');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Los geht’s');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Drei kurze Fragen.');

    const ending = section(page, 'Ending screen');
    await ending.getByLabel('Show your own ending screen', { exact: true }).focus();
    await page.keyboard.press('Space');
    const endingTitle = ending.getByLabel('Ending title', { exact: true });
    await expect.poll(() => hasFocus(endingTitle)).toBe(true);
    await page.keyboard.type('Danke!');
    const redirect = ending.getByLabel('Redirect to', { exact: true });
    expect(await descriptionOf(redirect)).toContain('{submission_id}');
    await redirect.fill('http://example.com/danke');
    await page.getByLabel('Language', { exact: true }).selectOption({ label: 'Deutsch — German' });
    await page.getByText('Unpublished changes: Welcome screen, Ending screen, Language.').waitFor();
    await photograph(page, 'form-page-settings', [section(page, 'Settings'), welcome, ending]);

    // Not https: the schema's pattern refuses it (400).
    await page.getByRole('button', { name: 'Publish changes' }).click();
    await page.getByRole('alert').filter({ hasText: 'Check the highlighted fields' }).waitFor();
    expect(await redirect.getAttribute('aria-invalid')).toBe('true');
    expect(await descriptionOf(redirect)).toMatch(/must match pattern/);
    await page
      .getByRole('list', { name: 'Issues to fix' })
      .getByRole('link', { name: /must match pattern/ })
      .waitFor();
    expect((await form(formId)).version).toBe(1);
    await photograph(page, 'form-page-redirect-refused', [ending]);
    await expectAccessibleAtBothWidths(page);

    // The placeholder outside the query: the service's own check refuses it (422).
    await redirect.fill('https://example.com/danke/{submission_id}');
    await page.getByRole('button', { name: 'Publish changes' }).click();
    await expect.poll(() => descriptionOf(redirect)).toMatch(/only in its query/);
    expect(await redirect.getAttribute('aria-invalid')).toBe('true');
    // Nothing typed was lost.
    expect(await welcomeTitle.inputValue()).toBe('Willkommen');
    expect(await page.getByLabel('Language', { exact: true }).inputValue()).toBe('de');

    await redirect.fill('https://example.com/danke?ref={submission_id}');
    await page.getByRole('button', { name: 'Publish changes' }).click();
    await published(page, 2);
    expect(await redirect.getAttribute('aria-invalid')).toBeNull();
    expect(await form(formId)).toMatchObject({
      version: 2,
      language: 'de',
      welcome: { title: 'Willkommen', button_label: 'Los geht’s', text: 'Drei kurze Fragen.' },
      ending: { title: 'Danke!', text: null, redirect_url: 'https://example.com/danke?ref={submission_id}' },
    });

    // The preview draws the page's screens with the page's own code, in the form's language.
    const screenToPreview = page.getByLabel('Screen to preview', { exact: true });
    await preview(page, 'step 1').getByRole('button', { name: 'Absenden' }).waitFor();
    await screenToPreview.selectOption({ label: 'Welcome screen' });
    await preview(page, 'the welcome screen').getByRole('heading', { name: 'Willkommen' }).waitFor();
    await preview(page, 'the welcome screen').getByRole('button', { name: 'Los geht’s' }).waitFor();
    expect(await preview(page, 'the welcome screen').locator('html').getAttribute('lang')).toBe('de');
    await screenToPreview.selectOption({ label: 'Ending screen' });
    await preview(page, 'the ending screen').getByRole('heading', { name: 'Danke!' }).waitFor();
    const onward = preview(page, 'the ending screen').getByRole('link', { name: 'Fortfahren' });
    expect(await onward.getAttribute('href')).toBe('https://example.com/danke?ref=sub_preview');
    await photograph(page, 'form-page-preview-ending', [page.getByRole('region', { name: 'Preview' })]);

    // Turning the welcome screen off and on again brings back what it said; off, it is published as none.
    await welcome.getByLabel('Show a welcome screen', { exact: true }).uncheck();
    await welcome.getByLabel('Show a welcome screen', { exact: true }).check();
    expect(await welcomeTitle.inputValue()).toBe('Willkommen');
    await welcome.getByLabel('Show a welcome screen', { exact: true }).uncheck();
    await page.getByRole('button', { name: 'Publish changes' }).click();
    await published(page, 3);
    expect(await form(formId)).toMatchObject({ version: 3, welcome: null, ending: { title: 'Danke!' } });
  });

  it('when the editor uploads a logo, then the builder shows the API’s image; refused images say why; Remove takes it away', async () => {
    const { page } = editor;
    const logo = section(page, 'Logo');
    const file = logo.getByLabel('Logo image', { exact: true });
    expect(await file.getAttribute('accept')).toBe('image/png,image/jpeg,image/webp');
    expect(await descriptionOf(file)).toContain('PNG, JPEG or WebP image, at most 256 KB, 16 to 2048 pixels wide and high.');
    const upload = logo.getByRole('button', { name: 'Upload logo' });
    expect(await upload.isDisabled()).toBe(true);

    // Refusals, each beside the input in words, and the form unchanged. An SVG is not even sent.
    const sentBefore = editor.requests.length;
    await file.setInputFiles({
      name: 'logo.svg',
      mimeType: 'image/svg+xml',
      buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    });
    await logo.getByRole('alert').filter({ hasText: 'Not an image type the page shows' }).waitFor();
    expect(await descriptionOf(file)).toContain('“logo.svg” is of type image/svg+xml.');
    expect(await file.getAttribute('aria-invalid')).toBe('true');
    expect(await upload.isDisabled()).toBe(true);
    expect(editor.requests.slice(sentBefore)).toEqual([]);
    const refusals = [
      { name: 'logo.png', buffer: Buffer.from('not an image at all'), title: 'The image cannot be used', status: 422 },
      { name: 'huge.png', buffer: Buffer.alloc(logoLimits.maxBytes + 1, 1), title: 'The image is too large', status: 413 },
    ];
    for (const refused of refusals) {
      await file.setInputFiles({ name: refused.name, mimeType: 'image/png', buffer: refused.buffer });
      expect(await file.getAttribute('aria-invalid')).toBeNull();
      const answer = page.waitForResponse((response) => response.request().method() === 'PUT');
      await upload.click();
      expect((await answer).status()).toBe(refused.status);
      await logo.getByRole('alert').filter({ hasText: refused.title }).waitFor();
      expect(await file.getAttribute('aria-invalid')).toBe('true');
      expect(await descriptionOf(file)).toContain(refused.title);
    }
    await photograph(page, 'form-logo-refused', [logo]);
    expect(await form(formId)).toMatchObject({ version: 3, logo: null });
    await expectAccessibleAtBothWidths(page);

    // By keyboard: the file chosen, Tab reaches Upload, Enter sends it.
    await file.setInputFiles({ name: 'acme.png', mimeType: 'image/png', buffer: pngImage(160, 48) });
    await file.focus();
    await page.keyboard.press('Tab');
    await expect.poll(() => hasFocus(upload)).toBe(true);
    await page.keyboard.press('Enter');
    await logo.getByRole('status').filter({ hasText: 'Logo uploaded: version 4.' }).waitFor();
    const stored = await form(formId);
    expect(stored.logo).toMatchObject({ content_type: 'image/png', width: 160, height: 48 });
    const image = logo.getByRole('img', { name: "The form's current logo" });
    expect(await image.getAttribute('src')).toBe(stored.logo.url);
    await expect.poll(() => image.evaluate((node) => (node as unknown as { naturalWidth: number }).naturalWidth)).toBe(160);
    await logo.getByText('PNG, 160 × 48 pixels').waitFor();
    // The preview shows it too, as the page does (the ending screen is still the one chosen).
    const previewed = preview(page, 'the ending screen').getByRole('img', { name: 'Logo von Demo request' });
    expect(await previewed.getAttribute('src')).toBe(stored.logo.url);
    expect(await logo.getByRole('alert').count()).toBe(0);
    const newFile = logo.getByLabel('New logo image', { exact: true });
    expect(await newFile.getAttribute('aria-invalid')).toBeNull();
    expect(await newFile.inputValue()).toBe('');
    // The builder works on from the new version: a change is published without a 412.
    await page.getByLabel('Name', { exact: true }).fill('Demo request (branded)');
    await page.getByRole('button', { name: 'Publish changes' }).click();
    await published(page, 5);
    await photograph(page, 'form-logo', [logo, page.getByRole('region', { name: 'Preview' })]);
    await expectAccessibleAtBothWidths(page);

    // Someone else changes the form: the logo is not replaced over their change.
    expect((await dashboard.api.call('patch', `/v1/forms/${formId}`).send({ name: 'Renamed elsewhere' })).status).toBe(200);
    await logo
      .getByLabel('New logo image', { exact: true })
      .setInputFiles({ name: 'other.png', mimeType: 'image/png', buffer: pngImage(64, 64, 1) });
    await logo.getByRole('button', { name: 'Upload new logo' }).click();
    const stale = logo.getByRole('alert').filter({ hasText: 'Changed by someone else' });
    await stale.waitFor();
    expect((await form(formId)).logo).toEqual(stored.logo);
    await stale.getByRole('button', { name: 'Reload' }).click();
    await screenHeading(page, 'Renamed elsewhere');

    await logo.getByRole('button', { name: 'Remove logo' }).click();
    await logo.getByRole('button', { name: 'Confirm' }).click();
    await logo.getByRole('status').filter({ hasText: 'Logo removed: version 7.' }).waitFor();
    expect(await form(formId)).toMatchObject({ version: 7, logo: null, language: 'de', ending: { title: 'Danke!' } });
    expect(await logo.getByRole('img').count()).toBe(0);
  });

  it('when someone else sets a regional language and a logo, then a publish names both as changed; Reload shows and keeps the tag', async () => {
    const { page } = editor;
    const ending = section(page, 'Ending screen');
    await ending.getByLabel('Ending title', { exact: true }).fill('Obrigado!');
    expect((await dashboard.api.call('patch', `/v1/forms/${formId}`).send({ language: 'pt-br' })).status).toBe(200);
    const logoSet = await dashboard.api
      .call('put', `/v1/forms/${formId}/logo`)
      .set('Content-Type', 'image/png')
      .send(pngImage(120, 40, 2));
    expect(logoSet.status).toBe(200);
    await page.getByRole('button', { name: 'Publish changes' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Changed by someone else' });
    await alert.waitFor();
    const changed = page.getByRole('list', { name: 'Changed since you opened it' });
    await changed.getByText('Logo', { exact: true }).waitFor();
    expect(await changed.getByRole('listitem').allTextContents()).toEqual(['Language', 'Logo']);

    await alert.getByRole('button', { name: 'Reload' }).click();
    await page.getByRole('status').filter({ hasText: 'Reloaded: version 9.' }).waitFor();
    const language = page.getByLabel('Language', { exact: true });
    expect(await language.inputValue()).toBe('pt-BR');
    // Named by the browser's own data ("Brazilian Portuguese" in Chromium's English).
    expect(await language.locator('option:checked').textContent()).toMatch(/^Português \(Brasil\) — .*Portuguese.* \(pt-BR\)$/);
    expect(await section(page, 'Logo').getByRole('img', { name: "The form's current logo" }).getAttribute('src')).toBe(
      logoSet.body.logo.url,
    );
    await ending.getByLabel('Ending title', { exact: true }).fill('Obrigado!');
    await page.getByRole('button', { name: 'Publish changes' }).click();
    await published(page, 10);
    expect(await form(formId)).toMatchObject({ language: 'pt-BR', ending: { title: 'Obrigado!' }, logo: logoSet.body.logo });
  });

  it('when the editor’s dashboard is done, then every request it made is one of the contract’s operations', () => {
    const verdicts = checkAgainstContract(editor.requests);
    expect(verdicts.filter((verdict) => verdict.problem)).toEqual([]);
    const used = new Set(verdicts.map((verdict) => verdict.operationId));
    for (const operation of ['getForm', 'updateForm', 'setFormLogo', 'deleteFormLogo']) expect(used).toContain(operation);
  });

  it('when a viewer opens the form, then they see its page settings and logo with nothing to change', async () => {
    const { logo: current } = await form(formId);
    await addMember('vera@acme.test', 'viewer');
    const { page, requests } = await dashboard.signIn('vera@acme.test', { path: `forms/${formId}` });
    await screenHeading(page, 'Renamed elsewhere');
    const ending = section(page, 'Ending screen');
    expect(await ending.getByLabel('Show your own ending screen', { exact: true }).isDisabled()).toBe(true);
    expect(await ending.getByLabel('Ending title', { exact: true }).getAttribute('readonly')).not.toBeNull();
    expect(await ending.getByLabel('Redirect to', { exact: true }).inputValue()).toBe('https://example.com/danke?ref={submission_id}');
    expect(await section(page, 'Welcome screen').getByLabel('Show a welcome screen', { exact: true }).isDisabled()).toBe(true);
    expect(await page.getByLabel('Language', { exact: true }).isDisabled()).toBe(true);
    const logo = section(page, 'Logo');
    expect(await logo.getByRole('img', { name: "The form's current logo" }).getAttribute('src')).toBe(current.url);
    expect(await logo.getByRole('button').count()).toBe(0);
    expect(await logo.getByLabel(/logo image/i).count()).toBe(0);
    await expectAccessibleAtBothWidths(page);
    expect(writesOf(requests)).toEqual([]);
  });
});
