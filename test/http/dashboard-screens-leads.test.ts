/**
 * The dashboard's Leads and Analytics screens in Chromium, over leads made through the API: the list shows exactly
 * what `GET /v1/submissions` returns for the filters in the address (grade, search, order, page size, keyset pages,
 * kept across a reload); a lead's page shows its answers, score, grade and UTM context; rescoring one lead and a
 * whole form (the job's progress to the end), deleting a lead and erasing a person change what the API then holds;
 * the CSV download is the API's export of the same filter; every figure of Analytics equals `GET /v1/analytics`
 * for the same form and range. A viewer reads both screens without any control that changes data. axe-core finds
 * nothing at 1440 and 360 px.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RescoreWorker, startRescoreWorker } from '../../src/domain/rescore-jobs/worker.js';
import { type SignedIn, useDashboard, writesOf } from '../support/dashboard-browser.js';
import { createForm, type Form, type Submission, submit } from '../support/factories.js';
import { asText } from '../support/http-checks.js';
import { anaAnswers, anaHidden, budgetAnswers, demoForm, noBudgetAnswers } from './submissions-support.js';

const dashboard = useDashboard();
let worker: RescoreWorker;
let form: Form;
const lead: Record<'ana' | 'kim' | 'tom' | 'pat' | 'lou', Submission> = {} as never;
let page: Page;
let owner: SignedIn;

/** The demo scoring with the big-budget rule worth 60 instead of 40: Ana 65 → 85, Kim 40 (B) → 60 (A). */
const richerScoring = {
  rules: [{ id: 'big_budget', when: { field: 'budget_usd', op: 'gte', value: 50000 }, points: 60 }],
  grades: [
    { label: 'A', min_score: 50 },
    { label: 'B', min_score: 20 },
    { label: 'C', min_score: 0 },
  ],
};

beforeAll(async () => {
  // The server process runs queued rescore jobs; this file's API is the app alone, so the test runs the worker.
  worker = startRescoreWorker(dashboard.api.services, { pollIntervalMs: 100 });
  form = await createForm(dashboard.api, demoForm());
  const utm = (source: string) => ({ utm: { source, medium: 'cpc', campaign: 'spring' } });
  const ana = { form_id: form.id, answers: anaAnswers(), hidden: anaHidden(), context: utm('linkedin') };
  lead.ana = await submit(dashboard.api, ana); // 65 A
  lead.kim = await submit(dashboard.api, { form_id: form.id, answers: budgetAnswers(60_000), context: utm('google') }); // 40 B
  lead.tom = await submit(dashboard.api, { form_id: form.id, answers: noBudgetAnswers(), context: utm('newsletter') }); // 10 C
  lead.pat = await submit(dashboard.api, {
    form_id: form.id,
    answers: { ...noBudgetAnswers('201_plus'), full_name: 'Pat Doe', email: 'Pat@Erase.example' },
  }); // 25 B
  lead.lou = await submit(dashboard.api, {
    form_id: form.id,
    answers: { full_name: 'Lou Park', email: 'lou@partial.example' },
    status: 'partial',
  }); // 0 C
});

afterAll(async () => {
  await worker?.stop();
});

const get = async (path: string) => {
  const res = await dashboard.api.call('get', path);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const apiIds = async (query: string): Promise<string[]> =>
  ((await get(`/v1/submissions?${query}`)).data as Submission[]).map((submission) => submission.id);

/** The body rows of the table whose caption is `caption`, as the text of each cell. */
async function tableRows(caption: string): Promise<string[][]> {
  await page.getByRole('table', { name: caption }).waitFor();
  return (await page.evaluate(`(() => {
    const table = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent.trim() === ${JSON.stringify(caption)});
    return [...table.tBodies[0].rows].map((row) => [...row.cells].map((cell) => cell.textContent.trim()));
  })()`)) as string[][];
}

/** The ids of the leads the table shows, in order (each row links to `/dashboard/leads/<id>`). */
const shownIds = (): Promise<string[]> =>
  page.evaluate(`(() => {
    const table = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent.trim() === 'Leads matching the filters');
    if (!table || table.closest('[aria-busy="true"]')) return null;
    return [...table.tBodies[0].rows].map((row) => row.querySelector('a').pathname.split('/').pop());
  })()`) as Promise<string[]>;

/** Term → description of the description lists inside `region` (a section named by its heading). */
async function pairsIn(region: string): Promise<Record<string, string>> {
  const terms = await page.getByRole('region', { name: region, exact: true }).getByRole('term').allTextContents();
  const definitions = await page.getByRole('region', { name: region, exact: true }).getByRole('definition').allTextContents();
  return Object.fromEntries(terms.map((term, index) => [term.trim(), definitions[index]?.trim() ?? '']));
}

const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });
const address = () => new URL(page.url());
/** The page does not scroll sideways: what is wide (a table) scrolls inside its own frame. */
const noSidewaysScroll = async () =>
  expect(
    await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
    'page wider than the screen',
  ).toBe(0);

describe('Leads', () => {
  it('when filtered by grade and by text, ordered by score and paged by two, then it shows the API list, also after a reload', async () => {
    owner = await dashboard.signIn('owner@acme.test', { path: 'leads' });
    ({ page } = owner);
    await page.getByRole('heading', { level: 1, name: 'Leads' }).waitFor();
    await expect.poll(shownIds).toEqual(await apiIds(''));
    expect(await dashboard.axeViolations(page)).toEqual([]);

    await page.getByLabel('Form', { exact: true }).selectOption({ label: 'Demo request' });
    await page.getByRole('group', { name: 'Grade' }).getByLabel('A', { exact: true }).check();
    await page.getByRole('group', { name: 'Grade' }).getByLabel('B', { exact: true }).check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => address().searchParams.getAll('grade')).toEqual(['A', 'B']);
    const byGrade = await apiIds(`form_id=${form.id}&grade=A&grade=B`);
    expect(byGrade).toEqual([lead.pat.id, lead.kim.id, lead.ana.id]);
    await expect.poll(shownIds).toEqual(byGrade);
    expect(await dashboard.axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Search answers').fill('BrightDesk');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const bySearch = await apiIds('q=BrightDesk');
    expect(bySearch).toEqual([lead.tom.id]);
    await expect.poll(shownIds).toEqual(bySearch);

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByText('More filters').click();
    await page.getByLabel('Leads per page').fill('2');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByLabel('Order').selectOption({ label: 'Highest score first' });
    const first = await apiIds('sort=-score&limit=2');
    expect(first).toEqual([lead.ana.id, lead.kim.id]);
    await expect.poll(shownIds).toEqual(first);
    expect(await page.getByRole('columnheader', { name: 'Score' }).getAttribute('aria-sort')).toBe('descending');

    await page.getByRole('button', { name: 'Next page' }).click();
    const second = await apiIds(`sort=-score&limit=2&starting_after=${lead.kim.id}`);
    expect(second).toEqual([lead.pat.id, lead.tom.id]);
    await expect.poll(shownIds).toEqual(second);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(shownIds).toEqual([lead.lou.id]);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(shownIds).toEqual(second);

    await page.reload();
    await expect.poll(shownIds).toEqual(second);
    expect(address().searchParams.get('sort')).toBe('-score');
    expect(await page.getByLabel('Leads per page').inputValue()).toBe('2');

    // A filter the API refuses: its issue under the field it names, and what was typed stays.
    await page.getByLabel('Lowest score').fill('50');
    await page.getByLabel('Highest score').fill('10');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const refused = await dashboard.api.call('get', '/v1/submissions?min_score=50&max_score=10');
    expect(refused.status).toBe(400);
    expect(refused.body.details.errors).toMatchObject([{ pointer: '/max_score' }]);
    await page.getByRole('listitem').filter({ hasText: refused.body.details.errors[0].message }).waitFor();
    // The field's description (what a screen reader reads with it) is that issue.
    const describedBy = await page.getByLabel('Highest score').getAttribute('aria-describedby');
    const description = await page.evaluate(
      `${JSON.stringify(describedBy)}.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ')`,
    );
    expect(description).toContain(refused.body.details.errors[0].message);
    expect([await page.getByLabel('Lowest score').inputValue(), await page.getByLabel('Highest score').inputValue()]).toEqual(['50', '10']);

    await page.getByLabel('Leads per page').fill('');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(shownIds).toEqual(await apiIds(''));
  });

  it('when a lead is opened, then its answers, steps, score, grade and UTM are the API’s, and a rescore shows its change', async () => {
    const patched = await dashboard.api.call('patch', `/v1/forms/${form.id}`).send({ scoring: richerScoring });
    expect(patched.status).toBe(200);
    await page.getByRole('link', { name: 'kim@lee.example' }).click();
    await page.getByRole('heading', { level: 1, name: 'Lead kim@lee.example' }).waitFor();
    const answers = await pairsIn('About your company');
    expect(answers).toEqual({ 'Company size': '1 to 10', 'Do you have a budget this quarter?': 'Yes' });
    const locale = (await page.evaluate('navigator.language')) as string;
    expect(await pairsIn('Budget')).toEqual({ 'Budget in USD': new Intl.NumberFormat(locale).format(60_000) });
    const details = await page.getByRole('term').allTextContents();
    expect(details).toEqual(expect.arrayContaining(['Score', 'Grade', 'UTM source', 'UTM medium']));
    const stored = await get(`/v1/submissions/${lead.kim.id}`);
    const summary = Object.fromEntries(
      await Promise.all(
        ['Score', 'Grade', 'UTM source', 'UTM campaign'].map(async (term) => [
          term,
          (
            await page
              .getByRole('term')
              .filter({ hasText: new RegExp(`^${term}$`) })
              .locator('xpath=following-sibling::dd')
              .textContent()
          )?.trim(),
        ]),
      ),
    );
    expect(summary).toEqual({ Score: String(stored.score), Grade: stored.grade, 'UTM source': 'google', 'UTM campaign': 'spring' });
    expect(await page.getByRole('list').filter({ hasText: 'Who are you?' }).getByRole('listitem').allTextContents()).toEqual(
      stored.visited_steps.map((id: string) => demoForm().steps?.find((step) => step?.id === id)?.title),
    );
    expect(await dashboard.axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Rescore with the current scoring' }).click();
    await status('score 40 → 60, grade B → A').waitFor();
    expect(await get(`/v1/submissions/${lead.kim.id}`)).toMatchObject({ score: 60, grade: 'A' });
  });

  it('when the whole form is rescored, then the job’s progress runs to the end and the list shows the new scores', async () => {
    await page.getByRole('link', { name: 'All leads' }).click();
    await page.getByLabel('Form', { exact: true }).selectOption({ label: 'Demo request' });
    await page.getByRole('button', { name: 'Rescore every lead of this form' }).click();
    await status(/Rescore finished/).waitFor({ timeout: 15_000 });
    expect(await status(/Rescore finished/).textContent()).toBe('Rescore finished: 5 of 5 leads rescored, 1 changed.');
    expect(await get(`/v1/submissions/${lead.ana.id}`)).toMatchObject({ score: 85, grade: 'A' });
    const scoreOf = async (contact: string) => (await tableRows('Leads matching the filters')).find((row) => row[0] === contact)?.[3];
    await expect.poll(() => scoreOf('ana.pereira@acme-logistics.example')).toBe('85');
  });

  it('when the grade A leads are exported as CSV, then the download is the API’s export of the same filter', async () => {
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Form', { exact: true }).selectOption({ label: 'Demo request' });
    await page.getByRole('group', { name: 'Grade' }).getByLabel('A', { exact: true }).check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(shownIds).toEqual(await apiIds(`form_id=${form.id}&grade=A`));
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('submissions.csv');
    const file = await readFile(await download.path(), 'utf8');
    const fromApi = await dashboard.api
      .call('get', `/v1/submissions/export?form_id=${form.id}&grade=A&format=csv`)
      .buffer(true)
      .parse(asText);
    expect(file).toBe(fromApi.body);
    expect(file.split('\r\n').filter(Boolean)).toHaveLength(3); // the header, Ana and Kim
    await status('Downloaded submissions.csv.').waitFor();

    const [ndjson] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download NDJSON' }).click()]);
    expect(ndjson.suggestedFilename()).toBe('submissions.ndjson');
    const records = (await readFile(await ndjson.path(), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Submission);
    expect(records.map((record) => record.id)).toEqual(await apiIds(`form_id=${form.id}&grade=A`));
  });

  it('when a lead is deleted and a person erased by email, then the API no longer has them and the list follows', async () => {
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByRole('link', { name: 'lou@partial.example' }).click();
    await page.getByRole('button', { name: 'Delete this lead' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await status('This lead was deleted.').waitFor();
    expect((await dashboard.api.call('get', `/v1/submissions/${lead.lou.id}`)).status).toBe(404);

    await page.getByRole('link', { name: 'All leads' }).click();
    await expect.poll(shownIds).toEqual(await apiIds(''));
    await page.getByLabel('Email address').fill('pat@erase.example');
    await page.getByRole('button', { name: "Erase this person's leads" }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await status('Erased: 1 lead deleted').waitFor();
    expect((await dashboard.api.call('get', `/v1/submissions/${lead.pat.id}`)).status).toBe(404);
    await expect.poll(shownIds).toEqual([lead.tom.id, lead.kim.id, lead.ana.id]);
  });
});

describe('Analytics', () => {
  it('when a form and range are chosen, then the funnel, completion rate, grades, spam and each day equal GET /v1/analytics', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Analytics' }).click();
    await page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
    await expect.poll(() => address().searchParams.get('form_id')).toBe(form.id);
    const locale = (await page.evaluate('navigator.language')) as string;
    const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 });
    const number = new Intl.NumberFormat(locale);

    const expectFigures = async (query: string) => {
      const figures = await get(`/v1/analytics?form_id=${form.id}${query}`);
      await expect
        .poll(() => pairsIn('Summary'))
        .toEqual({
          Started: number.format(figures.submissions.started),
          Completed: number.format(figures.submissions.completed),
          'Completion rate': percent.format(figures.submissions.completion_rate),
          'Spam caught': number.format(figures.spam),
          'Average score': figures.score.average === null ? '—' : number.format(figures.score.average),
        });
      expect(await tableRows('Funnel figures')).toEqual([
        ['Started', number.format(figures.submissions.started), '—', '—'],
        ...figures.steps.map((step: { title: string; reached: number; dropped_off: number; drop_off_rate: number }) => [
          step.title,
          number.format(step.reached),
          number.format(step.dropped_off),
          percent.format(step.drop_off_rate),
        ]),
        ['Completed', number.format(figures.submissions.completed), '—', '—'],
      ]);
      expect(await tableRows('Completed leads by grade')).toEqual(
        figures.score.grades.map((grade: { label: string | null; count: number }) => [
          grade.label ?? 'No grade',
          number.format(grade.count),
        ]),
      );
      expect(await tableRows('Submissions per day (UTC)')).toEqual(
        figures.daily.map((day: { date: string; started: number; completed: number }) => [
          day.date,
          number.format(day.started),
          number.format(day.completed),
        ]),
      );
      expect(await tableRows('Submissions by UTM source')).toEqual(
        figures.utm_sources.top.map((source: { source: string | null; started: number; completed: number }) => [
          source.source ?? 'No source',
          number.format(source.started),
          number.format(source.completed),
        ]),
      );
      return figures;
    };

    // The API's default range: the last 30 days. Ana, Kim and Tom are left, all completed; none is spam.
    await page.getByText('Figures per day').click();
    const month = await expectFigures('');
    expect(month.submissions).toEqual({ started: 3, completed: 3, completion_rate: 1 });
    expect(month.daily).toHaveLength(30);
    expect(await dashboard.axeViolations(page)).toEqual([]);

    const today = new Date().toISOString().slice(0, 10);
    await page.getByLabel('From (UTC day)').fill(today);
    await page.getByLabel('To (UTC day, included)').fill(today);
    await expect.poll(() => address().searchParams.get('from')).toBe(today);
    await expect.poll(() => tableRows('Submissions per day (UTC)')).toHaveLength(1);
    const day = await expectFigures(`&from=${today}&to=${today}`);
    expect(day.daily).toEqual([{ date: today, started: 3, completed: 3 }]);
  });

  it('at 360 px, then Analytics, the leads and a lead read without sideways scrolling and axe-core finds nothing', async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    expect(await dashboard.axeViolations(page)).toEqual([]);
    await noSidewaysScroll();
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Leads' }).click();
    await expect.poll(shownIds).toEqual(await apiIds(''));
    expect(await dashboard.axeViolations(page)).toEqual([]);
    await noSidewaysScroll();
    await page.getByRole('link', { name: 'kim@lee.example' }).click();
    await page.getByRole('heading', { level: 1, name: 'Lead kim@lee.example' }).waitFor();
    expect(await dashboard.axeViolations(page)).toEqual([]);
    await noSidewaysScroll();

    // Everything the page asked for was the API's (downloads included), and the page's policy refused nothing.
    expect(owner.requests.filter((request) => !request.path.startsWith('/v1/'))).toEqual([]);
    expect(owner.refusals).toEqual([]);
  });
});

describe('A viewer', () => {
  it('when a viewer opens Leads, a lead and Analytics, then they read them with no control that rescores, deletes or erases', async () => {
    await dashboard.api.store.team.addMember(dashboard.api.workspace.workspace_id, {
      id: `mem_${randomBytes(12).toString('hex')}`,
      object: 'member',
      email: 'viewer@acme.test',
      name: null,
      role: 'viewer',
      created_at: new Date().toISOString(),
    });
    const viewer = await dashboard.signIn('viewer@acme.test', { path: `leads?form_id=${form.id}` });
    const view = viewer.page;
    await view.getByRole('table', { name: 'Leads matching the filters' }).waitFor();
    expect(await view.getByRole('button', { name: /Rescore|Erase|Delete/ }).count()).toBe(0);
    expect(await view.getByRole('button', { name: 'Download CSV' }).isEnabled()).toBe(true);
    await view.getByRole('link', { name: 'kim@lee.example' }).click();
    await view.getByRole('heading', { level: 1, name: 'Lead kim@lee.example' }).waitFor();
    await view
      .getByRole('term')
      .filter({ hasText: /^Score$/ })
      .waitFor();
    expect(await view.getByRole('button', { name: /Rescore|Erase|Delete/ }).count()).toBe(0);
    await view.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Analytics' }).click();
    await view.getByRole('table', { name: 'Funnel figures' }).waitFor();
    // Besides signing in (the OAuth token exchange), the viewer's dashboard only reads.
    expect(writesOf(viewer.requests)).toEqual([]);
    expect(viewer.refusals).toEqual([]);
  });
});
