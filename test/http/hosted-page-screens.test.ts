/**
 * The hosted page's screens, languages and live feedback in Chromium, by keyboard on a 360 px wide screen: a German
 * form's welcome (with its logo), steps and ending, completed and sent on to the ending's redirect address with the
 * submission's id; the same form in Arabic laid out right to left without horizontal scrolling, also when the server's
 * page names no language; an error that clears as soon as the answer is fixed and comes back when it is broken again;
 * the button that says Submit whenever the answers make the step the last on the path; a returning respondent taken
 * past the welcome to their step; and axe-core finding no violation, whatever its impact, in every language.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { pageLanguages } from '../../src/hosted/languages.js';
import { catalogues } from '../../src/hosted/page/i18n/catalogues.js';
import { localizer } from '../../src/hosted/page/i18n/localize.js';
import { createForm, type FormRequest } from '../support/factories.js';
import { axeViolations, policyRefusals } from '../support/hosted-browser.js';
import { useHostedBrowser } from './hosted-browser-support.js';
import { arabic, consultancyForm, english, german, logoSize, setLogo } from './hosted-screens-support.js';

// The logo's address is on the service's own origin, as the page's policy requires.
const { api, pages, port, openPage, heading } = useHostedBrowser({ ownBaseUrl: true });

// Strings, run in the page: the test program has no DOM library.
/** What has the keyboard focus: its tag, id and text. */
const focused = (page: Page) =>
  page.evaluate(`(() => {
    const element = document.activeElement;
    return { tag: element?.tagName.toLowerCase(), id: element?.id, text: element?.textContent?.trim() };
  })()`);

const scrollsSideways = (page: Page) =>
  page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth') as Promise<boolean>;

/** An element's text as shown (`innerText`): with the line breaks the stylesheet keeps. */
const shownText = (page: Page, selector: string) => page.evaluate(`document.querySelector(${JSON.stringify(selector)}).innerText`);

const langAndDir = (page: Page) => page.evaluate('[document.documentElement.lang, document.documentElement.dir]');

/** The left and right edges of the first element `selector` finds, in whole CSS pixels. */
const edges = (page: Page, selector: string) =>
  page.evaluate(`(() => {
    const box = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect();
    return { left: Math.round(box.left), right: Math.round(box.right) };
  })()`) as Promise<{ left: number; right: number }>;

async function expectNoAxeViolations(page: Page): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
}

const progressText = (page: Page) => page.textContent('.progress p');
const nextLabel = (page: Page) => page.textContent('#next');

describe('the hosted page’s screens', () => {
  it('when a German form with a welcome, logo and redirect is completed by keyboard, then the respondent lands on the redirect address with the submission’s id', async () => {
    pages.set('/danke', '<!doctype html><html lang="de"><head><title>Danke</title></head><body><h1>Angekommen</h1></body></html>');
    const redirect = `https://localhost:${port()}/danke?ref={submission_id}&quelle=formular`;
    const form = await createForm(api, consultancyForm(german, 'de', redirect));
    const logo = await setLogo(api, form.id);
    const page = await openPage({ width: 360 });
    const refusals = policyRefusals(page);
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname.replace(/\.[A-Z0-9]+\.js$/, '.js'));
    });
    await page.goto(`${api.baseUrl}/f/${form.id}`);

    // The welcome: the logo (sized before it loads), the form's name, its title and text with its line break, Starten.
    await heading(page, german.welcome.title);
    expect(await langAndDir(page)).toEqual(['de', 'ltr']);
    // The page script and the German words, once each (named by the server's page or loaded by the script), no other.
    expect(scripts.filter((path) => path.startsWith('/f/assets/')).sort()).toEqual(['/f/assets/messages-de.js', '/f/assets/page.js']);
    const image = page.getByRole('img', { name: 'Logo von Nordwind Beratung' });
    expect(await image.getAttribute('src')).toBe(logo.url);
    // Scaled into the page's logo box (at most 280 × 64), keeping its proportions.
    expect([await image.getAttribute('width'), await image.getAttribute('height')]).toEqual(['192', '64']);
    expect([logo.width, logo.height]).toEqual([logoSize.width, logoSize.height]);
    // Loaded from the service's own origin (the page's policy allows no other), and shown at the size it had before.
    await expect
      .poll(() => page.evaluate("document.querySelector('.logo').complete && document.querySelector('.logo').naturalWidth"))
      .toBe(logoSize.width);
    expect(await page.evaluate("[document.querySelector('.logo').width, document.querySelector('.logo').height]")).toEqual([192, 64]);
    expect(await page.textContent('main h1')).toBe(german.name);
    expect(await shownText(page, '.screen-text')).toBe(german.welcome.text);
    expect(await scrollsSideways(page)).toBe(false);
    await expectNoAxeViolations(page);

    await page.keyboard.press('Tab');
    expect(await focused(page)).toEqual({ tag: 'button', id: 'start', text: 'Starten' });
    await page.keyboard.press('Enter');
    await heading(page, german.contact.title);
    // Focus follows the screen: on the step's heading, where a screen reader starts reading.
    expect(await focused(page)).toEqual({ tag: 'h2', id: 'step-title', text: german.contact.title });
    expect([await progressText(page), await nextLabel(page)]).toEqual(['Schritt 1 von 3', 'Weiter']);

    await page.keyboard.press('Tab');
    await page.keyboard.type('Lena Vogel');
    await page.keyboard.press('Tab');
    await page.keyboard.type('lena@');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#error-email')).toBe('Geben Sie eine E-Mail-Adresse ein, z. B. name@beispiel.de.');
    expect(await page.textContent('#status')).toBe('Bitte prüfen Sie eine Angabe.');
    expect(await focused(page)).toMatchObject({ tag: 'input', id: 'field-email' });
    await expectNoAxeViolations(page);
    // Fixed, the error goes at once, before any other attempt to send.
    await page.keyboard.type('nordwind.example');
    expect(await page.textContent('#error-email')).toBe('');
    expect(await page.getAttribute('#field-email', 'aria-invalid')).toBeNull();
    expect(await page.textContent('#status')).toBe('');
    await page.keyboard.press('Enter');

    await heading(page, german.project.title);
    expect([await progressText(page), await nextLabel(page)]).toEqual(['Schritt 2 von 3', 'Weiter']);
    await page.keyboard.press('Tab'); // the budget group's first option, not yet chosen
    await page.keyboard.press('Space'); // under 5,000: the logic ends the form here
    expect([await progressText(page), await nextLabel(page)]).toEqual(['Schritt 2 von 2', 'Absenden']);
    await page.keyboard.press('ArrowDown'); // 5,000 or more: the details step follows
    expect([await progressText(page), await nextLabel(page)]).toEqual(['Schritt 2 von 3', 'Weiter']);
    await page.keyboard.press('ArrowUp');
    expect(await nextLabel(page)).toBe('Absenden');
    expect(await scrollsSideways(page)).toBe(false);
    await expectNoAxeViolations(page);

    // The page goes to the redirect address on its own. That first navigation is stopped, so the ending stays to be
    // checked; its link then goes there by keyboard.
    const redirects: string[] = [];
    await page.route(
      (url) => url.pathname === '/danke',
      async (route) => {
        redirects.push(route.request().url());
        if (redirects.length === 1) await route.abort('aborted');
        else await route.continue();
      },
    );
    await page.keyboard.press('Tab'); // Back
    await page.keyboard.press('Tab'); // Absenden
    expect(await focused(page)).toEqual({ tag: 'button', id: 'next', text: 'Absenden' });
    await page.keyboard.press('Enter');
    await expect.poll(() => redirects.length).toBe(1);
    await heading(page, german.ending.title);
    expect(await focused(page)).toEqual({ tag: 'h2', id: 'screen-title', text: german.ending.title });
    expect(await shownText(page, '.screen-text')).toBe(german.ending.text);
    expect(await page.getByRole('img', { name: 'Logo von Nordwind Beratung' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Fortfahren' }).getAttribute('href')).toBe(redirects[0]);
    expect(await scrollsSideways(page)).toBe(false);
    await expectNoAxeViolations(page);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toEqual({ tag: 'a', id: '', text: 'Fortfahren' });
    await page.keyboard.press('Enter');

    await page.waitForURL((url) => url.pathname === '/danke');
    expect(await page.textContent('h1')).toBe('Angekommen');
    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        status: 'completed',
        answers: { name: 'Lena Vogel', email: 'lena@nordwind.example', budget: 'small' },
        visited_steps: ['contact', 'project'],
      }),
    ]);
    const landed = new URL(page.url());
    expect(Object.fromEntries(landed.searchParams)).toEqual({ ref: listed.body.data[0].id, quelle: 'formular' });
    expect(redirects).toEqual([landed.href, landed.href]);
    expect(refusals).toEqual([]);
  });

  it('when the same form is in Arabic, then every screen is laid out right to left with no horizontal scroll at 360 px', async () => {
    const form = await createForm(api, consultancyForm(arabic, 'ar'));
    await setLogo(api, form.id);
    const page = await openPage({ width: 360 });
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await heading(page, arabic.welcome.title);
    expect(await langAndDir(page)).toEqual(['ar', 'rtl']);
    expect(await page.getByRole('img', { name: `شعار ${arabic.name}` }).count()).toBe(1);
    // The right edge is where lines start: the heading, the logo and the text hug it (360 px less the 16 px padding).
    expect((await edges(page, '#screen-title')).right).toBe(344);
    expect((await edges(page, '.logo')).right).toBe(344);
    expect(await scrollsSideways(page)).toBe(false);
    await expectNoAxeViolations(page);

    await page.keyboard.press('Tab');
    expect(await focused(page)).toEqual({ tag: 'button', id: 'start', text: 'ابدأ' });
    await page.keyboard.press('Enter');
    await heading(page, arabic.contact.title);
    const numeral = (value: number) => page.evaluate(`new Intl.NumberFormat('ar').format(${value})`);
    expect(await progressText(page)).toBe(`الخطوة ${await numeral(1)} من ${await numeral(3)}`);
    expect(await nextLabel(page)).toBe('التالي');
    await page.keyboard.press('Tab');
    await page.keyboard.type('ليلى حداد');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#error-email')).toBe('هذه الإجابة مطلوبة.');
    expect((await edges(page, 'label[for="field-name"]')).right).toBe(344);
    expect((await edges(page, '#error-email')).right).toBe(344);
    // The button sits at the line's end, on the left; with Back hidden nothing is beside it.
    expect((await edges(page, '#next')).left).toBe(16);
    expect(await scrollsSideways(page)).toBe(false);
    await expectNoAxeViolations(page);
    await page.keyboard.type('layla@shamal.example');
    await page.keyboard.press('Enter');

    await heading(page, arabic.project.title);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    expect(await nextLabel(page)).toBe('إرسال');
    // Back at the start of the line (the right), the button at its end (the left).
    expect((await edges(page, '#back')).right).toBe(344);
    expect((await edges(page, '#next')).left).toBe(16);
    expect(await scrollsSideways(page)).toBe(false);
    await expectNoAxeViolations(page);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');

    await heading(page, arabic.ending.title);
    expect(await shownText(page, '.screen-text')).toBe(arabic.ending.text);
    expect((await edges(page, '#screen-title')).right).toBe(344);
    expect(await scrollsSideways(page)).toBe(false);
    await expectNoAxeViolations(page);
    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ status: 'completed', answers: { name: 'ليلى حداد', email: 'layla@shamal.example', budget: 'small' } }),
    ]);
  });

  it('when the server’s page names no language, then the page takes lang and dir from the form itself', async () => {
    const form = await createForm(api, consultancyForm(arabic, 'ar-EG'));
    const page = await openPage({ width: 360 });
    await page.route(`${api.baseUrl}/f/${form.id}`, async (route) => {
      const served = await route.fetch();
      const html = (await served.text()).replace(/<html[^>]*>/, '<html>');
      await route.fulfill({ response: served, body: html });
    });
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await heading(page, arabic.welcome.title);
    expect(await langAndDir(page)).toEqual(['ar-EG', 'rtl']);
    expect(await page.textContent('#start')).toBe('ابدأ');
    expect(await scrollsSideways(page)).toBe(false);
  });
});

describe('errors and the button as the answers change', () => {
  const twoFields: FormRequest = {
    name: 'Errors demo',
    hosting: { enabled: true },
    steps: [
      {
        id: 'about',
        title: 'About your company',
        fields: [
          { type: 'short_text', ref: 'company', label: 'Company', required: true, min_length: 3 },
          { type: 'email', ref: 'email', label: 'Work email', required: true },
        ],
      },
    ],
  };

  it('when an answer is fixed after a first attempt, then its error clears at once, and comes back when the answer breaks again', async () => {
    const form = await createForm(api, twoFields);
    const page = await openPage({ width: 360 });
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await heading(page, 'About your company');
    await page.keyboard.press('Tab');
    // Before the first attempt to send, typing shows no error.
    await page.keyboard.type('A');
    expect(await page.textContent('#error-company')).toBe('');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#error-company')).toBe('This answer is required.');
    expect(await page.textContent('#error-email')).toBe('This answer is required.');
    expect(await page.textContent('#status')).toBe('2 answers need your attention.');
    expect(await focused(page)).toMatchObject({ id: 'field-company' });

    const company = async () => ({
      error: await page.textContent('#error-company'),
      invalid: await page.getAttribute('#field-company', 'aria-invalid'),
      describedBy: await page.getAttribute('#field-company', 'aria-describedby'),
      status: await page.textContent('#status'),
    });
    await page.keyboard.type('Ac');
    expect(await company()).toEqual({
      error: 'Enter at least 3 characters.',
      invalid: 'true',
      describedBy: 'error-company',
      status: '2 answers need your attention.',
    });
    await page.keyboard.type('me');
    expect(await company()).toEqual({ error: '', invalid: null, describedBy: 'error-company', status: 'One answer needs your attention.' });
    await expectNoAxeViolations(page);
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    expect(await company()).toEqual({
      error: 'Enter at least 3 characters.',
      invalid: 'true',
      describedBy: 'error-company',
      status: '2 answers need your attention.',
    });
    // The respondent kept typing where they were: the errors never took the focus.
    expect(await focused(page)).toMatchObject({ id: 'field-company' });

    await page.keyboard.type('me');
    await page.keyboard.press('Tab');
    await page.keyboard.type('ops@acme.example');
    expect([await page.textContent('#error-email'), await page.textContent('#status')]).toEqual(['', '']);
    await page.keyboard.press('Enter');
    await heading(page, 'Thank you!');
    expect(await focused(page)).toEqual({ tag: 'h2', id: 'screen-title', text: 'Thank you!' });
    await expectNoAxeViolations(page);
  });

  it('when a logic rule ends the form or jumps past a step, then the button says Submit exactly when the step is the last on the path', async () => {
    const form = await createForm(api, {
      name: 'Button demo',
      hosting: { enabled: true },
      steps: [
        {
          id: 'start',
          title: 'Do you have a project?',
          fields: [{ type: 'yes_no', ref: 'has_project', label: 'A project', required: true }],
        },
        { id: 'later', title: 'Tell us when', fields: [{ type: 'date', ref: 'when', label: 'Start date', required: false }] },
        { id: 'contact', title: 'How do we reach you?', fields: [{ type: 'email', ref: 'email', label: 'Work email', required: true }] },
      ],
      logic: [
        { id: 'no_project', from_step: 'start', when: { field: 'has_project', op: 'equals', value: false }, then: { action: 'end_form' } },
        {
          id: 'project',
          from_step: 'start',
          when: { field: 'has_project', op: 'equals', value: true },
          then: { action: 'jump_to_step', step: 'contact' },
        },
      ],
    });
    const page = await openPage({ width: 360 });
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await heading(page, 'Do you have a project?');
    expect([await progressText(page), await nextLabel(page)]).toEqual(['Step 1 of 3', 'Next']);
    await page.keyboard.press('Tab'); // Yes, not chosen yet
    await page.keyboard.press('ArrowDown'); // No: the form ends here
    expect([await progressText(page), await nextLabel(page)]).toEqual(['Step 1 of 1', 'Submit']);
    await page.keyboard.press('ArrowUp'); // Yes: the contact step follows, the date step skipped
    expect([await progressText(page), await nextLabel(page)]).toEqual(['Step 1 of 2', 'Next']);
    await page.keyboard.press('Enter');
    await heading(page, 'How do we reach you?');
    // No step after this one: Submit.
    expect([await progressText(page), await nextLabel(page)]).toEqual(['Step 2 of 2', 'Submit']);

    // A respondent who comes back finds their step, and is told how long their answers are kept.
    await page.reload();
    await heading(page, 'How do we reach you?');
    const kept = JSON.parse((await page.evaluate(`localStorage.getItem('form-funnel:${form.id}')`)) as string) as { expiresAt: string };
    const until = localizer('en').date(new Date(kept.expiresAt));
    expect(await page.textContent('#status')).toBe(`Welcome back! Your answers so far are kept on this device until ${until}.`);
    await page.keyboard.press('Tab');
    await page.keyboard.type('ops@acme.example');
    await page.keyboard.press('Enter');
    await heading(page, 'Thank you!');
    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        status: 'completed',
        answers: { has_project: true, email: 'ops@acme.example' },
        visited_steps: ['start', 'contact'],
      }),
    ]);
  });

  it('when a respondent who started returns to a form with a welcome, then they go straight to their step', async () => {
    const form = await createForm(api, consultancyForm(english, 'en'));
    const page = await openPage();
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await heading(page, english.welcome.title);
    await page.click('#start');
    await heading(page, english.contact.title);
    await page.fill('[name="name"]', 'Ada Moss');
    await page.fill('[name="email"]', 'ada@moss.example');
    await page.click('#next');
    await heading(page, english.project.title);
    await page.reload();
    await heading(page, english.project.title);
    expect(await page.locator('#start').count()).toBe(0);
    expect(await page.textContent('#status')).toMatch(/^Welcome back! Your answers so far are kept on this device until .+\.$/);
  });
});

describe('the page in every language', () => {
  it.each(pageLanguages)(
    'when a form is in %s, then the page’s own words are its catalogue’s and axe finds no violation',
    async (language) => {
      const form = await createForm(api, consultancyForm(english, language));
      const text = localizer(language, catalogues[language]);
      const page = await openPage({ width: 360 });
      await page.goto(`${api.baseUrl}/f/${form.id}`);
      await heading(page, english.welcome.title);
      expect(await langAndDir(page)).toEqual([language, text.dir]);
      expect(await page.textContent('#start')).toBe(text.text('start'));
      expect(await scrollsSideways(page)).toBe(false);
      await expectNoAxeViolations(page);
      await page.click('#start');
      await heading(page, english.contact.title);
      await page.fill('[name="name"]', 'A');
      await page.click('#next');
      await expect.poll(() => page.textContent('#error-name')).toBe(text.text('errorTooShort', { count: 2 }));
      expect(await page.textContent('#error-email')).toBe(text.text('errorRequired'));
      expect(await page.textContent('#status')).toBe(text.text('attention', { count: 2 }));
      expect(await page.textContent('#next')).toBe(text.text('next'));
      expect(await progressText(page)).toBe(text.text('progress', { position: 1, total: 3 }));
      expect(await scrollsSideways(page)).toBe(false);
      await expectNoAxeViolations(page);
    },
  );
});
