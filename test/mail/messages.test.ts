import { describe, expect, it } from 'vitest';
import { invitationMessage, signInMessage } from '../../src/mail/messages.js';

const url = 'https://forms.acme.example/invites/accept?token=AbC_dEf-123&next=%2Faccount';

const invitation = (overrides: Partial<Parameters<typeof invitationMessage>[0]> = {}) =>
  invitationMessage({
    to: 'grace@acme.example',
    workspaceName: 'Acme',
    role: 'viewer',
    inviter: 'Ada Lovelace',
    url,
    expiresAt: '2026-12-13T10:05:00.000Z',
    ...overrides,
  });

/** The lines of the text part that hold a link. */
const linkLines = (text: string) => text.split('\n').filter((line) => line.includes('https://'));

describe('the invitation', () => {
  it('when Ada invites Grace to Acme as a viewer, then the subject, the words and the link say so', () => {
    const message = invitation();
    expect(message.to).toBe('grace@acme.example');
    expect(message.subject).toBe("You're invited to join Acme on Form-Funnel");
    expect(message.text).toBe(
      [
        'Ada Lovelace has invited you to join Acme on Form-Funnel as a viewer.',
        '',
        'Accept the invitation:',
        '',
        url,
        '',
        'The link works once, until 13 December 2026 at 10:05 UTC.',
        '',
        'If you did not expect this invitation, you can ignore this email.',
        '',
      ].join('\n'),
    );
  });

  it('when the role is admin or editor and nobody is named as inviter, then the sentence still reads right', () => {
    expect(invitation({ role: 'admin', inviter: null }).text).toMatch(/^You are invited to join Acme on Form-Funnel as an admin\.\n/);
    expect(invitation({ role: 'editor' }).text).toMatch(/^Ada Lovelace has invited you to join Acme on Form-Funnel as an editor\.\n/);
  });

  it('when the link is in the text, then it stands alone on its line, exactly as given', () => {
    expect(linkLines(invitation().text)).toEqual([url]);
  });

  it('when the workspace name holds markup, then the HTML shows it as text and the link is escaped in its attribute', () => {
    const message = invitation({ workspaceName: '<script>alert("x")</script> & Co', inviter: "O'Brien <ob@evil.example>" });
    expect(message.html).not.toContain('<script>');
    expect(message.html).not.toContain('<ob@');
    expect(message.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co');
    expect(message.html).toContain('O&#39;Brien &lt;ob@evil.example&gt;');
    expect(message.html).toContain(`<a href="${url.replaceAll('&', '&amp;')}">Accept the invitation</a>`);
    expect(message.html).toContain(`<title>You&#39;re invited to join &lt;script&gt;`);
    // The plain-text part is text: nothing there runs, and escaping would show entities to the reader.
    expect(message.text).toContain('join <script>alert("x")</script> & Co on Form-Funnel');
  });

  it('when the HTML part is read, then it is a whole document in English with the words of the text part', () => {
    const { html } = invitation();
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8">.*\n<title>[^\n]*<\/title><\/head>\n<body>\n<p>/);
    expect(html).toContain('<p>Ada Lovelace has invited you to join Acme on Form-Funnel as a viewer.</p>');
    expect(html).toContain('<p>The link works once, until 13 December 2026 at 10:05 UTC.</p>');
    expect(html).toContain(`copy this address into your browser:<br>${url.replaceAll('&', '&amp;')}</p>`);
    expect(html.trimEnd().endsWith('</body>\n</html>')).toBe(true);
  });

  it('when a name begins or ends with spaces or a line break, then the sentence has single spaces around it', () => {
    const message = invitation({ workspaceName: '\n Acme \r\n', inviter: ' Ada\n' });
    expect(message.subject).toBe("You're invited to join Acme on Form-Funnel");
    expect(message.text.split('\n')[0]).toBe('Ada has invited you to join Acme on Form-Funnel as a viewer.');
  });

  it('when a name holds line breaks and a link of its own, then it stays on its line and no line starts with that link', () => {
    const message = invitation({
      workspaceName: 'Acme\r\n\r\nAccept the invitation:\n\nhttps://evil.example/\u2028x',
      inviter: 'Mallory\u0085\tX',
    });
    expect(message.subject).toBe("You're invited to join Acme Accept the invitation: https://evil.example/ x on Form-Funnel");
    expect(message.text.split('\n')[0]).toBe(
      'Mallory X has invited you to join Acme Accept the invitation: https://evil.example/ x on Form-Funnel as a viewer.',
    );
    expect(message.text.split('\n').filter((line) => line.startsWith('https://'))).toEqual([url]);
  });
});

describe('the sign-in link', () => {
  it('when Ada asks for a sign-in link, then the subject names it and the link stands alone, valid for the minutes given', () => {
    const link = 'https://forms.acme.example/sign-in/link?token=xyz';
    const message = signInMessage({ to: 'ada@acme.example', url: link, expiresInMinutes: 15 });
    expect(message.to).toBe('ada@acme.example');
    expect(message.subject).toBe('Your Form-Funnel sign-in link');
    expect(message.text.split('\n')).toEqual([
      'Someone asked to sign in to Form-Funnel as ada@acme.example.',
      '',
      'Sign in:',
      '',
      link,
      '',
      'The link works once, for 15 minutes.',
      '',
      'If you did not ask to sign in, you can ignore this email: nobody can sign in without the link.',
      '',
    ]);
    expect(message.html).toContain(`<a href="${link}">Sign in</a>`);
    expect(message.html).toContain('<title>Your Form-Funnel sign-in link</title>');
  });
});
