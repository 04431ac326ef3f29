/**
 * The people pages' HTML, as the views write it: every interpolated value escaped, the consent form's hidden fields
 * posted back exactly as given, nothing inline that the pages' Content-Security-Policy would refuse, a label for every
 * field. Their look, focus and accessibility in a browser: people-views-browser.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { passkeyButton } from '../../src/http/people-views/sign-in.js';
import {
  accountPage,
  type ConsentView,
  consentPage,
  emailSentPage,
  errorPage,
  invitePage,
  linkPage,
  type PageAssets,
  peopleAssets,
  peoplePagePolicy,
  peoplePolicy,
  signInPage,
} from '../../src/http/people-views.js';
import { passkeyEndpoints } from '../../src/people/passkey-protocol.js';

const assets: PageAssets = { stylesheet: '/f/assets/people.ABC.css', script: '/f/assets/people.DEF.js' };
const hostile = `<script>alert("x")</script>&'`;
const escaped = '&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;&#39;';

const consent = (overrides: Partial<ConsentView> = {}): ConsentView => ({
  clientName: 'Acme "Sync" app',
  redirectHost: 'app.example',
  workspaces: [
    { id: 'ws_1', name: 'Acme', role: 'admin', plan: 'enterprise' },
    { id: 'ws_2', name: 'Beta', role: 'viewer', plan: 'enterprise' },
  ],
  selectedWorkspaceId: 'ws_2',
  environment: 'live',
  scopes: [
    { scope: 'read', words: 'Read forms and submissions' },
    { scope: 'read_write', words: 'Change forms and submissions' },
  ],
  deniedScopes: [{ scope: 'admin', words: 'Manage keys, team and billing' }],
  hidden: { client_id: 'oc_1', redirect_uri: 'https://app.example/cb', state: 'xyz', code_challenge: 'abc' },
  account: { email: 'ana@acme.test', name: 'Ana' },
  ...overrides,
});

/** Every page, with ordinary stub data, written inside each test (so each mutant of a view runs the tests that reach it). */
const pageBuilders: Record<string, () => string> = {
  'sign-in': () => signInPage(assets, { next: '/oauth/authorize?client_id=oc_1', error: 'That link has expired.' }),
  'email sent': () => emailSentPage(assets, { email: 'ana@acme.test' }),
  link: () => linkPage(assets, { token: 'tok', email: 'ana@acme.test', next: '/account' }),
  invite: () => invitePage(assets, { token: 'tok', workspaceName: 'Acme', role: 'viewer', email: 'ana@acme.test', inviter: 'Olga' }),
  'invite, signed in as another': () =>
    invitePage(assets, {
      token: 'tok',
      workspaceName: 'Acme',
      role: 'viewer',
      email: 'ana@acme.test',
      signedInAs: 'bob@acme.test',
    }),
  account: () =>
    accountPage(assets, {
      account: { email: 'ana@acme.test', name: 'Ana' },
      memberships: [
        { workspaceName: 'Acme', role: 'admin', plan: 'business' },
        { workspaceName: 'Beta', role: 'viewer', plan: 'free' },
      ],
      passkeys: [
        { id: 'pk_1', name: 'Laptop', createdAt: '2026-12-06T09:00:00Z', lastUsedAt: null },
        { id: 'pk_2', name: 'Phone', createdAt: '2026-12-01T09:00:00Z', lastUsedAt: '2026-12-05T09:00:00Z' },
      ],
      notice: 'Passkey added.',
    }),
  'account, admin of one': () =>
    accountPage(assets, {
      account: { email: 'olga@acme.test', name: null },
      memberships: [
        { workspaceId: 'ws_1', workspaceName: 'Acme', role: 'admin', plan: 'business' },
        { workspaceId: 'ws_2', workspaceName: 'Beta', role: 'editor', plan: 'pro' },
        { workspaceName: 'Gamma', role: 'admin', plan: 'pro' },
      ],
      passkeys: [{ id: 'pk_1', name: 'Laptop', createdAt: '2026-12-06T09:00:00Z', lastUsedAt: null }],
    }),
  'account, admin of two': () =>
    accountPage(assets, {
      account: { email: 'olga@acme.test', name: null },
      memberships: [
        { workspaceId: 'ws_1', workspaceName: 'Acme', role: 'admin', plan: 'business' },
        { workspaceId: 'ws_2', workspaceName: 'Beta', role: 'admin', plan: 'pro' },
      ],
      passkeys: [{ id: 'pk_1', name: 'Laptop', createdAt: '2026-12-06T09:00:00Z', lastUsedAt: null }],
    }),
  'account without passkeys': () => accountPage(assets, { account: { email: 'ana@acme.test', name: null }, memberships: [], passkeys: [] }),
  consent: () => consentPage(assets, consent()),
  'consent, one workspace, test': () => consentPage(assets, consent({ workspaces: [consent().workspaces[0]!], environment: 'test' })),
  error: () => errorPage(assets, { status: 429, title: 'Too many requests', message: 'Wait a minute, then try again.' }),
};

/** The values of an element's attributes, unescaped the way a browser reads them. */
const decodeReferences = (text: string) => text.replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code)));
const attributesOf = (tag: string): Record<string, string> =>
  Object.fromEntries(
    [...tag.matchAll(/([\w-]+)(?:="([^"]*)")?/g)].slice(1).map(([, name, value]) => [name!, decodeReferences(value ?? '')]),
  );
const tags = (page: string, name: string) => [...page.matchAll(new RegExp(`<${name}\\b[^>]*>`, 'g'))].map(([tag]) => tag);

/** What a person reads on a page: its body's text, tags taken out, references decoded, spaces collapsed. */
const readableText = (page: string) =>
  decodeReferences(
    page
      .replace(/<head>[\s\S]*<\/head>/, '')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' '),
  ).trim();

const voidElements = new Set(['meta', 'link', 'input']);

/** Elements opened and not closed (or closed and not opened), and text where only elements belong. */
function structureIssues(page: string): string[] {
  const issues: string[] = [];
  const open: string[] = [];
  for (const [, closing, name, text] of page.matchAll(/<(\/?)([a-z][a-z0-9]*)\b[^>]*>|([^<]+)/g)) {
    if (text !== undefined) {
      if (['ul', 'html', 'head'].includes(open.at(-1) ?? '') && text.trim()) issues.push(`text in <${open.at(-1)}>: ${text.trim()}`);
    } else if (closing) {
      const expected = open.pop();
      if (expected !== name) issues.push(`</${name}> closes <${expected}>`);
    } else if (!voidElements.has(name!)) {
      open.push(name!);
    }
  }
  return [...issues, ...open.map((name) => `<${name}> not closed`)];
}

describe('every people page', () => {
  it.each(Object.entries(pageBuilders))(
    'when the %s page is written, then it is one whole document with a main landmark and one h1',
    (_name, build) => {
      const page = build();
      expect(page).toMatch(/^<!doctype html>\n<html lang="en">/);
      expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(page.match(/<main>/g)).toHaveLength(1);
      expect(page.match(/<h1>/g)).toHaveLength(1);
      expect(page).toContain(`<link rel="stylesheet" href="${assets.stylesheet}">`);
      expect(page.trimEnd()).toMatch(/<\/html>$/);
    },
  );

  it.each(Object.entries(pageBuilders))('when the %s page is written, then it has no inline script, style or handler', (_name, build) => {
    const page = build();
    expect(page).not.toMatch(/\sstyle=/i);
    expect(page).not.toMatch(/<style/i);
    expect(page).not.toMatch(/\son[a-z]+=/i);
    expect(page).not.toMatch(/javascript:/i);
    for (const script of tags(page, 'script')) expect(script).toBe(`<script src="${assets.script}" defer>`);
  });

  it.each(Object.entries(pageBuilders))('when the %s page is written, then every field a person fills in has a label', (_name, build) => {
    const page = build();
    for (const input of [...tags(page, 'input'), ...tags(page, 'select')]) {
      const { type, id } = attributesOf(input);
      if (type === 'hidden') continue;
      expect(id, input).toBeTruthy();
      expect(page).toContain(`<label for="${id}">`);
    }
    const fieldIds = [...tags(page, 'input'), ...tags(page, 'select')].map((field) => attributesOf(field).id);
    for (const label of tags(page, 'label')) expect(fieldIds, label).toContain(attributesOf(label).for);
    for (const button of page.matchAll(/<button\b[^>]*>(.*?)<\/button>/g)) expect(button[1]!.replace(/<[^>]+>/g, '').trim()).not.toBe('');
  });

  it.each(Object.entries(pageBuilders))('when the %s page posts a form, then it posts to this origin', (_name, build) => {
    const page = build();
    for (const form of tags(page, 'form')) {
      const { method, action } = attributesOf(form);
      expect(method).toBe('post');
      expect(action).toMatch(/^\/[^/]/);
    }
  });

  it('when only the sign-in and account pages run a passkey ceremony, then only they load the script', () => {
    const withScript = Object.entries(pageBuilders)
      .filter(([, build]) => build().includes('<script'))
      .map(([name]) => name);
    expect(withScript).toEqual(['sign-in', 'account', 'account, admin of one', 'account, admin of two', 'account without passkeys']);
  });

  it('when the browser files are not built, then an error page still reads, without a stylesheet', () => {
    const page = errorPage(undefined, { status: 503, title: 'Unavailable', message: 'Try again.' });
    expect(page).not.toContain('<link');
    expect(page).toContain('<h1>Unavailable</h1>');
    expect(page).toContain('<p class="hint">Error 503</p>');
    expect(structureIssues(page)).toEqual([]);
  });
});

const expectedText: Record<string, string> = {
  'sign-in':
    'Form-Funnel Sign in to Form-Funnel That link has expired. With a passkey Your device unlocks it with your fingerprint, ' +
    'face or screen lock. Sign in with a passkey A passkey needs JavaScript, which is off in this browser. With a link by ' +
    'email Email address Email me a sign-in link',
  'email sent':
    'Form-Funnel Check your email If an account exists for ana@acme.test , a link to sign in is on its way. It works once, ' +
    'and only for a short while. Nothing arrived? Check the spam folder, or ask for another link. Back to sign in',
  link:
    'Form-Funnel Continue as ana@acme.test This link signs you in to Form-Funnel on this device. It works once. Continue ' +
    'Not ana@acme.test ? Close this page: nothing happens until you continue.',
  invite:
    'Form-Funnel Join Acme as a viewer Olga invited ana@acme.test to the Acme workspace on Form-Funnel. A viewer can read ' +
    'the workspace’s forms and submissions, and change nothing. Accept invitation',
  'invite, signed in as another':
    'Form-Funnel Join Acme as a viewer This is an invitation for ana@acme.test to the Acme workspace on Form-Funnel. A ' +
    'viewer can read the workspace’s forms and submissions, and change nothing. You are signed in as bob@acme.test , and ' +
    'this invitation is for ana@acme.test . Sign out, then open the invitation again to accept it. Sign out',
  account:
    'Form-Funnel Your account Passkey added. Signed in as Ana ( ana@acme.test ). Passkeys Laptop Added 6 Dec 2026 , not ' +
    'used yet Remove Laptop Phone Added 1 Dec 2026 , last used 5 Dec 2026 Remove Phone Name for the new passkey ' +
    '(optional) Add a passkey A passkey needs JavaScript, which is off in this browser. Workspaces Acme Admin · Business ' +
    'plan Beta Viewer · Free plan Sign out',
  'account, admin of one':
    'Form-Funnel Your account Signed in as olga@acme.test . Passkeys Laptop Added 6 Dec 2026 , not used yet Remove Laptop ' +
    'Name for the new passkey (optional) Add a passkey A passkey needs JavaScript, which is off in this browser. ' +
    'Workspaces Acme Admin · Business plan Open the dashboard of Acme Beta Editor · Pro plan Open the dashboard of Beta ' +
    'Gamma Admin · Pro plan Invite someone to Acme Email address Role Viewer Editor Admin Invite Sign out',
  'account, admin of two':
    'Form-Funnel Your account Signed in as olga@acme.test . Passkeys Laptop Added 6 Dec 2026 , not used yet Remove Laptop ' +
    'Name for the new passkey (optional) Add a passkey A passkey needs JavaScript, which is off in this browser. ' +
    'Workspaces Acme Admin · Business plan Open the dashboard of Acme Beta Admin · Pro plan Open the dashboard of Beta ' +
    'Invite someone Workspace Acme Beta Email address Role Viewer Editor Admin Invite Sign out',
  'account without passkeys':
    'Form-Funnel Your account Signed in as ana@acme.test . Add a passkey You have no passkey yet. Add one now: next time ' +
    'you sign in with it, without waiting for an email. Name for the new passkey (optional) Add a passkey A passkey needs ' +
    'JavaScript, which is off in this browser. Workspaces You are not a member of any workspace. Sign out',
  consent:
    'Form-Funnel Acme "Sync" app wants to access your Form-Funnel workspace Signed in as ana@acme.test . Workspace Acme ' +
    '(Admin, Enterprise plan) Beta (Viewer, Enterprise plan) Your role in the workspace you choose limits what the ' +
    'application is granted. Environment: Live . It will be able to Read forms and submissions read Change forms and submissions read_write Not granted Asked ' +
    'for, but beyond what your role can grant: Manage keys, team and billing admin You will be sent back to app.example . ' +
    'Deny Approve',
  'consent, one workspace, test':
    'Form-Funnel Acme "Sync" app wants to access your Form-Funnel workspace Signed in as ana@acme.test . Workspace: Acme ' +
    '(Admin, Enterprise plan) Test environment : the application sees test data only, never live forms or submissions. ' +
    'It will be able to Read forms and submissions read Change forms and submissions read_write Not granted Asked for, but beyond what your role can grant: ' +
    'Manage keys, team and billing admin You will be sent back to app.example . Deny Approve',
  error: 'Form-Funnel Too many requests Wait a minute, then try again. Error 429 Go to sign in',
};

describe('what each page says', () => {
  it.each(Object.entries(pageBuilders))('when the %s page is read, then its text is what a person should read', (name, build) => {
    expect(readableText(build())).toBe(expectedText[name]);
  });

  it.each(Object.entries(pageBuilders))('when the %s page is parsed, then every element it opens is closed in order', (_name, build) => {
    expect(structureIssues(build())).toEqual([]);
  });

  it('when the structure check is given a broken page, then it names what is wrong', () => {
    expect(structureIssues('<html><head></head><body><ul>x<li>a</li></ul><form><div></form></body></html>')).toEqual([
      'text in <ul>: x',
      '</form> closes <div>',
      '</body> closes <form>',
      '</html> closes <body>',
      '<html> not closed',
    ]);
  });
});

describe('the policy and the asset paths', () => {
  it('when the policy is read, then it allows this origin only, forms posting here and no framing', () => {
    expect(peoplePagePolicy).toBe("default-src 'self'; base-uri 'none'; form-action 'self'; object-src 'none'; frame-ancestors 'none'");
  });

  it('when the consent page names an application origin, then forms may post there too, and nothing else widens', () => {
    expect(peoplePolicy('https://app.example')).toBe(
      "default-src 'self'; base-uri 'none'; form-action 'self' https://app.example; object-src 'none'; frame-ancestors 'none'",
    );
    expect(peoplePolicy()).toBe(peoplePagePolicy);
  });

  it('when a manifest is given, then the pages load its hashed people files from the assets route', () => {
    expect(peopleAssets({ 'people.css': 'people.X.css', 'people.js': 'people.Y.js' })).toEqual({
      stylesheet: '/f/assets/people.X.css',
      script: '/f/assets/people.Y.js',
    });
  });
});

describe('escaping', () => {
  it('when every value of every page is hostile, then each appears only escaped', () => {
    const written = [
      signInPage(assets, { next: hostile, error: hostile, notice: hostile }),
      emailSentPage(assets, { email: hostile }),
      linkPage(assets, { token: hostile, email: hostile, next: hostile, purpose: 'invite' }),
      invitePage(assets, { token: hostile, workspaceName: hostile, role: 'editor', roleWords: hostile, email: hostile, inviter: hostile }),
      invitePage(assets, { token: hostile, workspaceName: hostile, role: 'admin', email: hostile, signedInAs: `${hostile}x` }),
      accountPage(assets, {
        account: { email: hostile, name: hostile },
        memberships: [{ workspaceName: hostile, role: 'viewer', plan: 'free' }],
        passkeys: [{ id: hostile, name: hostile, createdAt: '2026-12-06T09:00:00Z', lastUsedAt: '2026-12-06T10:00:00Z' }],
        notice: hostile,
      }),
      accountPage(assets, { account: { email: hostile, name: null }, memberships: [], passkeys: [] }),
      consentPage(assets, {
        ...consent(),
        clientName: hostile,
        redirectHost: hostile,
        workspaces: [
          { id: hostile, name: hostile, role: 'admin', plan: 'enterprise' },
          { id: 'ws_2', name: `${hostile}2`, role: 'viewer', plan: 'enterprise' },
        ],
        scopes: [{ scope: hostile, words: hostile }],
        deniedScopes: [{ scope: hostile, words: hostile }],
        hidden: { [hostile]: hostile },
        account: { email: hostile, name: hostile },
        action: hostile,
      }),
      consentPage(assets, { ...consent(), workspaces: [{ id: hostile, name: hostile, role: 'editor', plan: 'pro' }] }),
      errorPage(assets, { status: 400, title: hostile, message: hostile }),
      errorPage({ stylesheet: hostile, script: hostile }, { status: 400, title: 'x', message: 'y' }),
      signInPage({ stylesheet: hostile, script: hostile }, {}),
    ];
    for (const page of written) {
      expect(page).not.toContain('<script>');
      expect(page).not.toContain('"x")');
      expect(page).not.toMatch(/&'|&(?!#\d+;|\w+;)/);
      expect(page).toContain(escaped);
    }
  });

  it('when a workspace is named <script>, then the picker shows its name as text', () => {
    const page = consentPage(
      assets,
      consent({ workspaces: [...consent().workspaces, { id: 'ws_3', name: '<script>x', role: 'editor', plan: 'pro' }] }),
    );
    expect(page).toContain('<label for="workspace-2">&#60;script&#62;x <span class="hint">(Editor, Pro plan)</span></label>');
  });

  it('when a client name carries quotes, then the heading and title keep them as text', () => {
    const page = consentPage(assets, consent({ clientName: `Bob's "best" app` }));
    expect(page).toContain('<h1>Bob&#39;s &#34;best&#34; app wants to access your Form-Funnel workspace</h1>');
    expect(page).toContain('<title>Bob&#39;s &#34;best&#34; app wants to access your Form-Funnel workspace · Form-Funnel</title>');
  });

  it('when a passkey id has characters a path cannot hold, then its remove form posts to the encoded path', () => {
    const page = accountPage(assets, {
      account: { email: 'a@b.test', name: null },
      memberships: [],
      passkeys: [{ id: 'pk/1?x', name: 'Key', createdAt: '2026-12-06T09:00:00Z', lastUsedAt: null }],
    });
    expect(page).toContain('<form method="post" action="/account/passkeys/pk%2F1%3Fx/remove" class="inline-form">');
  });
});

describe('the consent page', () => {
  it('when the request has parameters, then the form posts each back unchanged in a hidden field', () => {
    const hidden = {
      client_id: 'oc_1',
      redirect_uri: 'https://app.example/cb?x=1&y="2"',
      state: `a'b<c>&d`,
      scope: 'read read_write',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    };
    const page = consentPage(assets, consent({ hidden }));
    const posted = Object.fromEntries(
      tags(page, 'input')
        .map(attributesOf)
        .filter((input) => input.type === 'hidden')
        .map((input) => [input.name!, input.value!]),
    );
    expect(posted).toEqual(hidden);
  });

  it('when the person belongs to several workspaces, then a radio group offers them with the chosen one checked', () => {
    const page = consentPage(assets, consent());
    expect(page).toContain('<fieldset class="field">\n<legend>Workspace</legend>');
    const radios = tags(page, 'input')
      .map(attributesOf)
      .filter((input) => input.type === 'radio');
    expect(tags(page, 'input').filter((tag) => tag.includes('radio'))).toEqual([
      '<input type="radio" id="workspace-0" name="workspace" value="ws_1" required>',
      '<input type="radio" id="workspace-1" name="workspace" value="ws_2" checked required>',
    ]);
    expect(radios.map(({ name, value, checked }) => ({ name, value, checked }))).toEqual([
      { name: 'workspace', value: 'ws_1', checked: undefined },
      { name: 'workspace', value: 'ws_2', checked: '' },
    ]);
  });

  it('when there is one workspace, then it is named and posted without a choice', () => {
    const page = consentPage(assets, consent({ workspaces: [consent().workspaces[0]!], selectedWorkspaceId: 'ws_1' }));
    expect(page).not.toContain('type="radio"');
    expect(page).toContain('<input type="hidden" name="workspace" value="ws_1">');
    expect(page).toContain('Workspace: <strong>Acme</strong>');
  });

  it('when the page is shown, then it names the scopes granted and withheld, the environment and where Approve leads', () => {
    const page = consentPage(assets, consent());
    expect(page).toContain(
      '<ul class="scopes">\n<li>Read forms and submissions <code>read</code></li>\n' +
        '<li>Change forms and submissions <code>read_write</code></li>\n</ul>',
    );
    expect(page).toContain('<h2>Not granted</h2>');
    expect(page).toContain('<ul class="scopes scopes-denied">\n<li>Manage keys, team and billing <code>admin</code></li>\n</ul>');
    expect(page).toContain('Environment: <strong>Live</strong>');
    expect(page).toContain('You will be sent back to <strong class="address">app.example</strong>.');
    expect(page).toContain('<form method="post" action="/oauth/authorize">');
    expect(page).toContain('<button type="submit" name="decision" value="deny" class="secondary">Deny</button>');
    expect(page).toContain('<button type="submit" name="decision" value="approve">Approve</button>');
  });

  it('when the environment is test and nothing can be granted, then the page says both plainly', () => {
    const page = consentPage(assets, consent({ environment: 'test', scopes: [], deniedScopes: [], action: '/authorize' }));
    expect(page).toContain('<strong>Test environment</strong>');
    expect(page).toContain('Nothing: your role grants none of the access it asks for.');
    expect(page).not.toContain('Not granted');
    expect(page).toContain('<form method="post" action="/authorize">');
    expect(readableText(page)).toBe(
      'Form-Funnel Acme "Sync" app wants to access your Form-Funnel workspace Signed in as ana@acme.test . Workspace ' +
        'Acme (Admin, Enterprise plan) Beta (Viewer, Enterprise plan) Your role in the workspace you choose limits what ' +
        'the application is granted. Test environment : the application sees test data only, never live forms or ' +
        'submissions. It will be able to Nothing: your role grants none of the access it asks for. You will be sent back ' +
        'to app.example . Deny Approve',
    );
  });
});

describe('sign-in and links', () => {
  it('when the sign-in page is shown, then the passkey button names both endpoints and the next path, and explains itself without JavaScript', () => {
    const page = signInPage(assets, { next: '/account?x=1' });
    expect(page).toContain(
      `<button type="button" class="passkey" data-passkey="sign-in" data-options="${passkeyEndpoints['sign-in'].options}" ` +
        `data-verify="${passkeyEndpoints['sign-in'].verify}" data-status="passkey-status" data-fallback="passkey-fallback" ` +
        'data-next="/account?x=1" hidden>Sign in with a passkey</button>',
    );
    expect(page).toContain('<p id="passkey-fallback" class="hint">A passkey needs JavaScript, which is off in this browser.</p>');
    expect(page).toContain('<p id="passkey-status" class="status" role="status" aria-live="polite"></p>');
    expect(page).toContain('<form method="post" action="/sign-in/email">\n<input type="hidden" name="next" value="/account?x=1">');
    expect(page).toContain('<button type="submit" class="secondary">Email me a sign-in link</button>');
  });

  it('when a passkey button is given data, then each value becomes a data attribute of its own', () => {
    expect(passkeyButton('register', 'Add', { 'name-input': 'n', next: '/a"b' })).toContain(
      'data-status="passkey-status" data-fallback="passkey-fallback" data-name-input="n" data-next="/a&#34;b" hidden>Add</button>',
    );
  });

  it('when there is nowhere to go next, then neither form nor button carries a next', () => {
    const page = signInPage(assets, {});
    expect(page).not.toContain('name="next"');
    expect(page).not.toContain('data-next');
    expect(page).not.toContain('role="alert"');
    expect(readableText(page)).toBe(
      'Form-Funnel Sign in to Form-Funnel With a passkey Your device unlocks it with your fingerprint, face or screen lock. ' +
        'Sign in with a passkey A passkey needs JavaScript, which is off in this browser. With a link by email Email ' +
        'address Email me a sign-in link',
    );
    expect(page).toContain(
      '<form method="post" action="/sign-in/email">\n<div class="field"><label for="email">Email address</label>\n' +
        '<input id="email" name="email" type="email" autocomplete="username webauthn" required spellcheck="false"></div>',
    );
  });

  it('when an error or a notice comes with the page, then an error is an alert and a notice a status', () => {
    const page = signInPage(assets, { error: 'Expired.', notice: 'Signed out.' });
    expect(page).toContain('<p class="message message-error" role="alert">Expired.</p>');
    expect(page).toContain('<p class="message message-notice" role="status">Signed out.</p>');
  });

  it('when a link was asked for, then the answer is the same whether or not the address has an account', () => {
    const page = emailSentPage(assets, { email: 'ana@acme.test' });
    expect(page).toContain('If an account exists for <strong class="address">ana@acme.test</strong>, a link to sign in is on its way.');
    expect(page).toContain('<h1>Check your email</h1>');
  });

  it('when a link is opened, then its page spends nothing and offers a POST carrying the token', () => {
    const page = linkPage(assets, { token: 'tok_1', email: 'ana@acme.test', next: '/account' });
    expect(page).toContain('<h1>Continue as ana@acme.test</h1>');
    expect(page).toContain(
      '<form method="post" action="/sign-in/link">\n<input type="hidden" name="token" value="tok_1">\n' +
        '<input type="hidden" name="next" value="/account">\n<button type="submit">Continue</button>',
    );
    expect(page).toContain('This link signs you in to Form-Funnel on this device. It works once.');
    expect(linkPage(assets, { token: 't', email: 'a@b.test', purpose: 'invite' })).toContain('to accept your invitation');
    expect(linkPage(assets, { token: 't', email: 'a@b.test' })).toContain(
      '<input type="hidden" name="token" value="t">\n<button type="submit">Continue</button>',
    );
  });
});

describe('the invitation page', () => {
  const base = { token: 'tok_1', workspaceName: 'Acme', email: 'ana@acme.test' } as const;

  it('when a viewer is invited, then the page names the workspace, the role, what it allows and who invited', () => {
    const page = invitePage(assets, { ...base, role: 'viewer', inviter: 'Olga' });
    expect(page).toContain('<h1>Join Acme as a viewer</h1>');
    expect(page).toContain('<p>Olga invited <strong class="address">ana@acme.test</strong> to the <strong>Acme</strong> workspace');
    expect(page).toContain('<p>A viewer can read the workspace’s forms and submissions, and change nothing.</p>');
    expect(page).toContain(
      '<form method="post" action="/invites/accept">\n<input type="hidden" name="token" value="tok_1">\n<button type="submit">Accept invitation</button>',
    );
  });

  it('when the role is admin or editor, then the heading takes the right article and each role its own words', () => {
    expect(invitePage(assets, { ...base, role: 'admin' })).toContain('<h1>Join Acme as an admin</h1>');
    expect(invitePage(assets, { ...base, role: 'admin' })).toContain('An admin can do everything');
    expect(invitePage(assets, { ...base, role: 'editor' })).toContain('<h1>Join Acme as an editor</h1>');
    expect(invitePage(assets, { ...base, role: 'editor' })).toContain('An editor works on forms');
    expect(invitePage(assets, { ...base, role: 'editor', roleWords: 'Edits forms.' })).toContain('<p>Edits forms.</p>');
    expect(invitePage(assets, { ...base, role: 'editor' })).toContain('<p>This is an invitation for <strong');
  });

  it('when signed in as the invited address (in any case), then the page says so and offers Accept', () => {
    const page = invitePage(assets, { ...base, role: 'viewer', signedInAs: 'Ana@Acme.test' });
    expect(page).toContain('Signed in as <span class="address">Ana@Acme.test</span>.');
    expect(page).toContain('Accept invitation');
    expect(page).not.toContain('/sign-out');
  });

  it('when signed in as another address, then the page offers to sign out and not to accept', () => {
    const page = invitePage(assets, { ...base, token: 'a b', role: 'viewer', signedInAs: 'bob@acme.test' });
    expect(page).toContain('You are signed in as <strong class="address">bob@acme.test</strong>');
    expect(page).not.toContain('Accept invitation');
    expect(page).not.toContain('/invites/accept"');
    expect(page).toContain(
      '<form method="post" action="/sign-out" class="inline-form"><input type="hidden" name="next" value="/invites/accept?token=a%20b">' +
        '<button type="submit" class="secondary">Sign out</button></form>',
    );
  });
});

describe('the account page', () => {
  it('when the person administers one workspace with an id, then the invitation form names it and posts its id', () => {
    const page = pageBuilders['account, admin of one']!();
    expect(page).toContain(
      '<form method="post" action="/account/invites">\n<input type="hidden" name="workspace" value="ws_1">\n' +
        '<div class="field"><label for="invite-email">Email address</label>\n' +
        '<input id="invite-email" name="email" type="email" required maxlength="254" autocomplete="off"></div>\n' +
        '<div class="field"><label for="invite-role">Role</label>\n<select id="invite-role" name="role">' +
        '<option value="viewer">Viewer</option><option value="editor">Editor</option><option value="admin">Admin</option>' +
        '</select></div>\n<button type="submit">Invite</button>\n</form></section>',
    );
  });

  it('when the person administers two, then the invitation form offers them in a select', () => {
    expect(pageBuilders['account, admin of two']!()).toContain(
      '<select id="invite-workspace" name="workspace"><option value="ws_1">Acme</option><option value="ws_2">Beta</option></select>',
    );
  });

  it('when the person administers none, then there is no invitation form', () => {
    expect(pageBuilders.account!()).not.toContain('/account/invites');
  });

  it('when the person has no passkey, then adding one is the prompt, with a labelled name field', () => {
    const page = accountPage(assets, { account: { email: 'ana@acme.test', name: null }, memberships: [], passkeys: [] });
    expect(page).toContain(
      '<section class="panel panel-prompt" aria-labelledby="passkeys-heading">\n<h2 id="passkeys-heading">Add a passkey</h2>',
    );
    expect(page).toContain('You have no passkey yet.');
    expect(page).toContain('data-passkey="register"');
    expect(page).toContain(`data-options="${passkeyEndpoints.register.options}" data-verify="${passkeyEndpoints.register.verify}"`);
    expect(page).toContain('data-name-input="passkey-name"');
    expect(page).toContain(
      '<div class="field"><label for="passkey-name">Name for the new passkey <span class="hint">(optional)</span></label>\n' +
        '<input id="passkey-name" name="passkey-name" type="text" maxlength="100" autocomplete="off" placeholder="e.g. Work laptop"></div>',
    );
    expect(page).toContain('You are not a member of any workspace.');
    expect(page).toContain('<p>Signed in as <strong class="address">ana@acme.test</strong>.</p>');
  });

  it('when the person has passkeys and workspaces, then each is listed, each passkey with its own Remove form', () => {
    const page = accountPage(assets, {
      account: { email: 'ana@acme.test', name: 'Ana' },
      memberships: [
        { workspaceName: 'Acme', role: 'admin', plan: 'business' },
        { workspaceName: 'Beta', role: 'viewer', plan: 'enterprise' },
      ],
      passkeys: [
        { id: 'pk_1', name: 'Laptop', createdAt: '2026-12-06T09:00:00Z', lastUsedAt: '2026-12-07T23:59:00Z' },
        { id: 'pk_2', name: 'Phone', createdAt: '2026-01-31T09:00:00Z', lastUsedAt: null },
      ],
      notice: 'Passkey added.',
    });
    expect(page).not.toContain('panel-prompt');
    expect(page).toContain('<p>Signed in as <strong>Ana</strong> (<span class="address">ana@acme.test</span>).</p>');
    expect(page).toContain('<p class="message message-notice" role="status">Passkey added.</p>');
    expect(page).toContain(
      '<li class="item"><div><strong>Laptop</strong><p class="hint">Added <time datetime="2026-12-06T09:00:00Z">6 Dec 2026</time>, ' +
        'last used <time datetime="2026-12-07T23:59:00Z">7 Dec 2026</time></p></div>' +
        '<form method="post" action="/account/passkeys/pk_1/remove" class="inline-form">' +
        '<button type="submit" class="secondary">Remove<span class="visually-hidden"> Laptop</span></button></form></li>',
    );
    expect(page).toContain('<time datetime="2026-01-31T09:00:00Z">31 Jan 2026</time>, not used yet');
    expect(page).toContain('<strong>Acme</strong><p class="hint">Admin · Business plan</p>');
    expect(page).toContain('<strong>Beta</strong><p class="hint">Viewer · Enterprise plan</p>');
    expect(page).toContain(
      '<form method="post" action="/sign-out" class="inline-form"><button type="submit" class="secondary">Sign out</button></form>',
    );
  });
});
