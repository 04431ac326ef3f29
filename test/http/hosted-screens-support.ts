/**
 * A small consultancy's lead form in German, Arabic and English, with the round-two screens (welcome, ending, logic
 * that ends the form on a small budget) and a logo: for the hosted page's screen tests and their screenshots.
 */
import { expect } from 'vitest';
import type { FormRequest } from '../support/factories.js';
import type { WatchedApi } from '../support/http-checks.js';
import { pngImage } from '../support/images.js';

/** The logo: wider than high, as logos are. */
export const logoSize = { width: 480, height: 160 };

/** Uploads the logo for `formId` and returns the form's `logo`. */
export async function setLogo(api: WatchedApi, formId: string) {
  const res = await api
    .call('put', `/v1/forms/${formId}/logo`)
    .set('Content-Type', 'image/png')
    .send(pngImage(logoSize.width, logoSize.height));
  expect(res.status).toBe(200);
  return res.body.logo as { url: string; width: number; height: number };
}

/** The form's texts in one language: its own words, which the page shows as written. */
export interface ConsultancyTexts {
  name: string;
  welcome: { title: string; text: string };
  contact: { title: string; name: string; email: string };
  project: { title: string; budget: string; small: string; large: string };
  details: { title: string; about: string };
  ending: { title: string; text: string };
}

export const german: ConsultancyTexts = {
  name: 'Nordwind Beratung',
  welcome: { title: 'Willkommen bei Nordwind', text: 'Drei kurze Fragen zu Ihrem Projekt.\nDas dauert etwa eine Minute.' },
  contact: { title: 'Wer sind Sie?', name: 'Ihr Name', email: 'Geschäftliche E-Mail' },
  project: { title: 'Ihr Projekt', budget: 'Budget', small: 'Unter 5.000 €', large: 'Ab 5.000 €' },
  details: { title: 'Details', about: 'Worum geht es?' },
  ending: { title: 'Danke, wir melden uns!', text: 'Ihre Anfrage ist bei uns eingegangen.\nWir antworten innerhalb eines Werktags.' },
};

export const arabic: ConsultancyTexts = {
  name: 'استشارات الشمال',
  welcome: { title: 'أهلًا بك في استشارات الشمال', text: 'ثلاثة أسئلة قصيرة عن مشروعك.\nيستغرق ذلك دقيقة تقريبًا.' },
  contact: { title: 'من أنت؟', name: 'الاسم', email: 'البريد الإلكتروني للعمل' },
  project: { title: 'مشروعك', budget: 'الميزانية', small: 'أقل من ٥٠٠٠ يورو', large: '٥٠٠٠ يورو أو أكثر' },
  details: { title: 'التفاصيل', about: 'ما موضوع مشروعك؟' },
  ending: { title: 'شكرًا، سنتواصل معك قريبًا!', text: 'وصلنا طلبك.\nسنرد عليك خلال يوم عمل واحد.' },
};

export const english: ConsultancyTexts = {
  name: 'Northwind Consulting',
  welcome: { title: 'Welcome to Northwind', text: 'Three short questions about your project.\nIt takes about a minute.' },
  contact: { title: 'Who are you?', name: 'Your name', email: 'Work email' },
  project: { title: 'Your project', budget: 'Budget', small: 'Under €5,000', large: '€5,000 or more' },
  details: { title: 'Details', about: 'What is it about?' },
  ending: { title: 'Thanks, we will be in touch!', text: 'Your request has reached us.\nWe answer within one working day.' },
};

/**
 * The form: welcome → contact (name, at least 2 characters; email) → project (budget; a small one ends the form) →
 * details (optional text) → ending, which sends the respondent to `redirect` when given.
 */
export function consultancyForm(texts: ConsultancyTexts, language: string, redirect: string | null = null): FormRequest {
  return {
    name: texts.name,
    language,
    hosting: { enabled: true },
    appearance: { accent_color: '#0f766e', font: 'system' },
    welcome: { title: texts.welcome.title, text: texts.welcome.text, button_label: null },
    ending: { title: texts.ending.title, text: texts.ending.text, redirect_url: redirect },
    steps: [
      {
        id: 'contact',
        title: texts.contact.title,
        fields: [
          { type: 'short_text', ref: 'name', label: texts.contact.name, required: true, min_length: 2 },
          { type: 'email', ref: 'email', label: texts.contact.email, required: true },
        ],
      },
      {
        id: 'project',
        title: texts.project.title,
        fields: [
          {
            type: 'single_choice',
            ref: 'budget',
            label: texts.project.budget,
            required: true,
            options: [
              { value: 'small', label: texts.project.small },
              { value: 'large', label: texts.project.large },
            ],
          },
        ],
      },
      {
        id: 'details',
        title: texts.details.title,
        fields: [{ type: 'long_text', ref: 'details', label: texts.details.about, required: false, max_length: 1000 }],
      },
    ],
    logic: [
      { id: 'small_budget', from_step: 'project', when: { field: 'budget', op: 'equals', value: 'small' }, then: { action: 'end_form' } },
    ],
  };
}
