/**
 * The forms screens in Chromium, as an owner builds a form: a folder made on the list, a new form with two steps (the
 * second built with the keyboard alone), a single choice field with scored options, a logic rule and two grades; a
 * rule the API refuses (it jumps to its own step) shown at the input its pointer names with the draft kept, then
 * fixed and published as version 1, which the API then holds exactly; the preview drawn by the hosted page's code.
 * The half-built form is not lost: leaving it for another screen asks first, and the draft this tab keeps comes back
 * when the builder opens again and after a reload, until it is published. A draft kept while someone else changed
 * the form says so when it comes back, and its publish is "Changed by someone else" with what changed and Reload.
 * Each state is checked with axe at 1440 and 360 px. Then a viewer, who sees the builder without any control to
 * change it.
 */

import type { Locator, Page } from 'playwright-core';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { type SignedIn, screenHeading, useDashboard } from '../support/dashboard-browser.js';
import { checkAgainstContract } from '../support/documented-requests.js';

const dashboard = useDashboard();

/** axe finds nothing at 1440 px and at 360 px, where the page does not scroll sideways either. */
async function expectAccessibleAtBothWidths(page: Page): Promise<void> {
  expect(await dashboard.axeViolations(page)).toEqual([]);
  await page.setViewportSize({ width: 360, height: 800 });
  expect(await dashboard.axeViolations(page)).toEqual([]);
  expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
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

const step = (page: Page, name: RegExp) => page.getByRole('region', { name });
const screenLink = (page: Page, name: string) => page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name });

/** Answers the next dialog the page opens (the browser's own confirm or leave-page question); resolves to its text. */
const answerNextDialog = (page: Page, answer: 'accept' | 'dismiss') =>
  new Promise<{ type: string; message: string }>((resolve) => {
    page.once('dialog', (dialog) => {
      resolve({ type: dialog.type(), message: dialog.message() });
      void dialog[answer]();
    });
  });

/** The keys of the drafts this tab keeps in sessionStorage. */
const keptDrafts = (page: Page) =>
  page.evaluate("Object.keys(sessionStorage).filter((key) => key.startsWith('form-funnel.dashboard.draft'))") as Promise<string[]>;
const restoredNotice = (page: Page) => page.getByRole('status').filter({ hasText: 'Restored your unpublished changes from this tab.' });
const group = (scope: Locator | Page, name: string | RegExp) => scope.getByRole('group', { name, exact: true });

/** Everything the owner builds, as the API must then hold it. */
const built = {
  name: 'Demo request',
  steps: [
    {
      id: 'step_1',
      title: 'Contact',
      fields: [
        {
          type: 'single_choice',
          ref: 'company_size',
          label: 'Company size',
          required: true,
          options: [
            { value: 'small', label: 'Small', score: 0 },
            { value: 'large', label: 'Large', score: 50 },
          ],
        },
      ],
    },
    // Built with the keyboard; the API fills in the schema's defaults the builder left out.
    { id: 'step_2', title: 'Budget', fields: [{ type: 'short_text', ref: 'budget', label: 'Budget', required: false, max_length: 255 }] },
  ],
  logic: [
    { id: 'rule_1', from_step: 'step_1', when: { field: 'company_size', op: 'equals', value: 'small' }, then: { action: 'end_form' } },
  ],
  scoring: {
    rules: [],
    grades: [
      { label: 'hot', min_score: 50 },
      { label: 'cold', min_score: 0 },
    ],
  },
};

describe('the forms screens', () => {
  let owner: SignedIn;
  let formId: string;

  it('when the API refuses a built form, then the issue shows at its input, the draft stays, and the fix is version 1', async () => {
    owner = await dashboard.signIn('owner@acme.test', { path: 'forms' });
    const { page } = owner;
    await screenHeading(page, 'Forms');
    await page.getByLabel('New folder', { exact: true }).fill('Sales');
    await page.getByRole('button', { name: 'Create folder' }).click();
    await page.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: 'Sales' }).waitFor();
    await expectAccessibleAtBothWidths(page);

    await page.getByRole('link', { name: 'New form' }).click();
    await screenHeading(page, 'New form');

    // Step 1, before the form has a name: a required single choice field whose options carry scores.
    const first = step(page, /^Step 1:/);
    await first.getByLabel('Title', { exact: true }).fill('Contact');
    await first.getByRole('button', { name: 'Add field to Step 1' }).click();
    const choice = group(first, /^Field 1/);
    await choice.getByLabel('Question', { exact: true }).fill('Company size');
    await expect.poll(() => choice.getByLabel('Key', { exact: true }).inputValue()).toBe('company_size');
    await choice.getByLabel('Type', { exact: true }).selectOption({ label: 'Single choice' });
    await choice.getByLabel('Required', { exact: true }).check();
    const option1 = group(choice, 'Option 1');
    await option1.getByLabel('Label', { exact: true }).fill('Small');
    await option1.getByLabel('Score', { exact: true }).fill('0');
    await choice.getByRole('button', { name: 'Add option' }).click();
    const option2 = group(choice, 'Option 2');
    await option2.getByLabel('Label', { exact: true }).fill('Large');
    await option2.getByLabel('Score', { exact: true }).fill('50');
    expect(await option2.getByLabel('Value', { exact: true }).inputValue()).toBe('large');

    // Leaving the half-built form for another screen asks first; staying keeps the builder and the address.
    let asked = answerNextDialog(page, 'dismiss');
    await screenLink(page, 'Leads').click();
    expect(await asked).toMatchObject({ type: 'confirm', message: expect.stringMatching(/unpublished changes/) });
    await screenHeading(page, 'New form');
    expect(page.url()).toMatch(/\/dashboard\/forms\/new$/);
    expect(await option2.getByLabel('Score', { exact: true }).inputValue()).toBe('50');
    asked = answerNextDialog(page, 'accept');
    await screenLink(page, 'Leads').click();
    await asked;
    await screenHeading(page, 'Leads');
    // Back on a new form, the draft this tab kept is there again.
    await screenLink(page, 'Forms').click();
    await page.getByRole('link', { name: 'New form' }).click();
    await restoredNotice(page).waitFor();
    expect(await choice.getByLabel('Question', { exact: true }).inputValue()).toBe('Company size');
    expect(await option2.getByLabel('Score', { exact: true }).inputValue()).toBe('50');
    await page.getByLabel('Name', { exact: true }).fill(built.name);
    await page.getByLabel('Folder', { exact: true }).selectOption({ label: 'Sales' });

    // Step 2, with the keyboard alone: Enter on "Add step" focuses its title; Tab and Enter add and fill a field.
    await page.getByRole('button', { name: 'Add step' }).focus();
    await page.keyboard.press('Enter');
    const second = step(page, /^Step 2:/);
    await expect.poll(() => hasFocus(second.getByLabel('Title', { exact: true }))).toBe(true);
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Budget');
    for (let tab = 0; tab < 3; tab += 1) await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Add field to Step 2');
    await page.keyboard.press('Enter');
    await expect.poll(() => hasFocus(group(second, /^Field 1/).getByLabel('Question', { exact: true }))).toBe(true);
    await page.keyboard.type('Budget');
    await second.getByRole('heading', { name: 'Step 2: Budget' }).waitFor();

    // A rule after step 1 that jumps to step 1 itself: only the server's logic check refuses it.
    await page.getByRole('button', { name: 'Add rule' }).click();
    const rule = group(page, 'Rule 1');
    await rule.getByLabel('After step', { exact: true }).selectOption({ label: 'Step 1: Contact' });
    await rule.getByLabel('Field', { exact: true }).selectOption({ label: 'Company size (company_size)' });
    await rule.getByLabel('Operator', { exact: true }).selectOption({ label: 'is' });
    await rule.getByLabel('Option', { exact: true }).selectOption({ label: 'Small' });
    await rule.getByLabel('Go to', { exact: true }).selectOption({ label: 'Step 1: Contact' });

    for (const [label, minimum] of [
      ['hot', '50'],
      ['cold', '0'],
    ] as const) {
      await page.getByRole('button', { name: 'Add grade' }).click();
      const grade = group(page, /^Grade \d$/).last();
      await grade.getByLabel('Label', { exact: true }).fill(label);
      await grade.getByLabel('Minimum score', { exact: true }).fill(minimum);
    }

    // The preview draws the chosen step with the hosted page's own markup.
    const preview = page.frameLocator('iframe[title^="Preview of step 1"]');
    await preview.getByRole('heading', { name: 'Contact' }).waitFor();
    await preview.getByRole('group', { name: 'Company size (required)' }).waitFor();
    for (const option of ['Small', 'Large']) expect(await preview.getByRole('radio', { name: option }).count()).toBe(1);
    await page.getByLabel('Screen to preview', { exact: true }).selectOption({ label: 'Step 2: Budget' });
    await page.frameLocator('iframe[title^="Preview of step 2"]').getByRole('textbox', { name: 'Budget' }).waitFor();

    // A reload asks first (the browser's leave-page question), and the whole draft comes back.
    asked = answerNextDialog(page, 'accept');
    await page.reload();
    expect((await asked).type).toBe('beforeunload');
    await restoredNotice(page).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe(built.name);
    expect(await rule.getByLabel('Go to', { exact: true }).inputValue()).toBe('step_1');
    expect(await group(page, 'Grade 2').getByLabel('Label', { exact: true }).inputValue()).toBe('cold');
    expect(await keptDrafts(page)).toHaveLength(1);
    await expectAccessibleAtBothWidths(page);

    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Check the highlighted fields' }).waitFor();
    const target = rule.getByLabel('Go to', { exact: true });
    expect(await target.getAttribute('aria-invalid')).toBe('true');
    expect(await descriptionOf(target)).toMatch(/loop/);
    // Nothing built was lost.
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe(built.name);
    expect(await option2.getByLabel('Score', { exact: true }).inputValue()).toBe('50');
    expect(await page.getByRole('list', { name: 'Issues to fix' }).getByRole('link').count()).toBe(1);
    expect((await dashboard.api.call('get', '/v1/forms')).body.data).toEqual([]);
    await expectAccessibleAtBothWidths(page);

    await rule.getByLabel('Then', { exact: true }).selectOption({ label: 'End the form' });
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Published version 1.' }).waitFor();
    await screenHeading(page, built.name);
    formId = /\/dashboard\/forms\/(form_\w+)$/.exec(page.url())?.[1] ?? '';
    expect(formId).not.toBe('');
    expect(await keptDrafts(page)).toEqual([]);
    expect(await restoredNotice(page).count()).toBe(0);
    await page.getByRole('rowheader', { name: 'Version 1 (current)' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Transfer' }).count()).toBe(1);

    const stored = await dashboard.api.call('get', `/v1/forms/${formId}`);
    const [folder] = (await dashboard.api.call('get', '/v1/folders')).body.data;
    expect(stored.body).toMatchObject({ name: built.name, version: 1, folder_id: folder.id });
    expect({ steps: stored.body.steps, logic: stored.body.logic, scoring: stored.body.scoring }).toEqual({
      steps: built.steps,
      logic: built.logic,
      scoring: built.scoring,
    });
  });

  it('when the form of a kept draft changed meanwhile, then the draft comes back saying so, and is refused until Reload', async () => {
    const { page } = owner;
    const renamed = await dashboard.api.call('patch', `/v1/forms/${formId}`).send({ name: 'Demo request (renamed elsewhere)' });
    expect(renamed.status).toBe(200);
    const second = step(page, /^Step 2:/);
    await second.getByLabel('Title', { exact: true }).fill('Budget and timing');
    await page.getByText('Unpublished changes: Steps and fields.').waitFor();
    // The browser's Back asks too; staying keeps the builder at its address.
    let asked = answerNextDialog(page, 'dismiss');
    await page.goBack();
    expect((await asked).type).toBe('confirm');
    await expect.poll(() => page.url()).toMatch(new RegExp(`/dashboard/forms/${formId}$`));
    expect(await second.getByLabel('Title', { exact: true }).inputValue()).toBe('Budget and timing');
    asked = answerNextDialog(page, 'accept');
    await page.goBack();
    await asked;
    await screenHeading(page, 'Forms');
    await page.getByRole('link', { name: 'Demo request (renamed elsewhere)' }).click();
    await restoredNotice(page).filter({ hasText: 'They were made to version 1, and the form has changed since.' }).waitFor();
    await page.getByRole('list', { name: 'Changed since you opened it' }).getByText('Name').waitFor();
    expect(await second.getByLabel('Title', { exact: true }).inputValue()).toBe('Budget and timing');
    await page.getByRole('button', { name: 'Publish changes' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Changed by someone else' });
    await alert.waitFor();
    await page.getByRole('list', { name: 'Changed since you opened it' }).getByText('Name').waitFor();
    expect(await second.getByLabel('Title', { exact: true }).inputValue()).toBe('Budget and timing');
    expect((await dashboard.api.call('get', `/v1/forms/${formId}`)).body.steps[1].title).toBe('Budget');
    await expectAccessibleAtBothWidths(page);

    await alert.getByRole('button', { name: 'Reload' }).click();
    await screenHeading(page, 'Demo request (renamed elsewhere)');
    await page.getByRole('status').filter({ hasText: 'Reloaded: version 2.' }).waitFor();
    expect(await second.getByLabel('Title', { exact: true }).inputValue()).toBe('Budget');
    expect(await keptDrafts(page)).toEqual([]);
  });

  it('when the owner restores version 1 and offers the form elsewhere, then version 3 and a pending transfer follow', async () => {
    const { page } = owner;
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Version 1 restored as version 3.' }).waitFor();
    await page.getByRole('rowheader', { name: 'Version 3 (current)' }).waitFor();
    expect((await dashboard.api.call('get', `/v1/forms/${formId}`)).body).toMatchObject({ version: 3, steps: built.steps });

    const elsewhere = `ws_${'B'.repeat(24)}`;
    await page.getByLabel('Destination workspace id', { exact: true }).fill(elsewhere);
    await page.getByRole('button', { name: 'Offer transfer' }).click();
    const offer = page.getByRole('row').filter({ hasText: elsewhere });
    await expect.poll(() => offer.textContent()).toContain('pending');
    await offer.getByRole('button', { name: 'Cancel transfer' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => offer.textContent()).toContain('canceled');
    expect((await dashboard.api.call('get', '/v1/transfers')).body.data).toEqual([
      expect.objectContaining({ form_id: formId, to_workspace_id: elsewhere, status: 'canceled' }),
    ]);

    // Everything the page asked for is one of the contract's operations.
    const verdicts = checkAgainstContract(owner.requests);
    expect(verdicts.filter((verdict) => verdict.problem)).toEqual([]);
    const used = new Set(verdicts.map((verdict) => verdict.operationId));
    for (const operation of [
      'listForms',
      'createFolder',
      'listFolders',
      'createForm',
      'getForm',
      'updateForm',
      'listFormVersions',
      'listTransfers',
    ])
      expect(used).toContain(operation);
  });

  it('when a viewer opens the form, then they see it read-only: no Publish, no Add, nothing to type into', async () => {
    const invite = await dashboard.api.call('post', '/v1/team/invites').send({ email: 'vera@acme.test', role: 'viewer' });
    expect(invite.status).toBe(201);
    const due = await dashboard.api.store.people.dueMail('2100-01-01T00:00:00.000Z', 100);
    const link = /https:\/\/\S+/.exec(due.filter((mail) => mail.to === 'vera@acme.test').at(-1)?.text ?? '')?.[0] ?? '';
    const accepted = await request(dashboard.api.baseUrl)
      .post('/invites/accept')
      .trustLocalhost()
      .ca(dashboard.api.certificate)
      .set('Origin', dashboard.api.baseUrl)
      .type('form')
      .send({ token: new URL(link).searchParams.get('token') });
    expect(accepted.status).toBe(303);

    const { page } = await dashboard.signIn('vera@acme.test', { path: `forms/${formId}` });
    await screenHeading(page, 'Demo request (renamed elsewhere)');
    await step(page, /^Step 1:/).waitFor();
    expect(await page.getByRole('button', { name: /publish|save|add|remove|move/i }).count()).toBe(0);
    expect(await page.getByLabel('Name', { exact: true }).getAttribute('readonly')).not.toBeNull();
    expect(await page.getByLabel('Folder', { exact: true }).isDisabled()).toBe(true);
    await page.frameLocator('iframe[title^="Preview of step 1"]').getByRole('heading', { name: 'Contact' }).waitFor();
    await expectAccessibleAtBothWidths(page);

    await page.getByRole('link', { name: 'All forms' }).click();
    await page.getByRole('link', { name: 'Demo request (renamed elsewhere)' }).waitFor();
    expect(await page.getByRole('link', { name: 'New form' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create folder' }).count()).toBe(0);
  });
});
