/**
 * The webhook URL rules an integration's URL must pass (no SSRF, no credentials), with the reasons a
 * refusal gives. The address ranges themselves are covered in integrations.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { dnsWebhookUrlPolicy } from '../../src/adapters/dns-resolver.js';
import { addressRefusal, checkWebhookUrl } from '../../src/domain/integrations/webhook-url.js';

const policy = {
  allowPrivateAddresses: false,
  resolveHost: async (hostname: string) => {
    if (hostname === 'api.example.com') return [{ address: '93.184.215.14', family: 4 as const }];
    if (hostname === 'empty.example.com') return [];
    throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
  },
};

describe('checkWebhookUrl refusals', () => {
  it.each(['https://user:secret@api.example.com/hook', 'https://user@api.example.com/hook', 'https://:secret@api.example.com/hook'])(
    'when the URL %s carries credentials, then it is refused and says so',
    async (url) => {
      expect(await checkWebhookUrl(url, policy)).toEqual({ ok: false, reason: 'it carries credentials (user:password@)' });
    },
  );

  it.each([
    ['not a url', 'it is not a URL'],
    ['http://api.example.com/hook', 'it is not an https URL'],
    ['https://empty.example.com/', 'its host empty.example.com does not resolve'],
    ['https://unknown.example.com/', 'its host unknown.example.com does not resolve'],
  ])('when the URL is %s, then the reason is %j', async (url, reason) => {
    expect(await checkWebhookUrl(url, policy)).toEqual({ ok: false, reason });
  });

  it('when the host is an IP literal, then the address to connect to is it, with its family and without brackets', async () => {
    expect(await checkWebhookUrl('https://[2606:4700::1111]/hook', policy)).toEqual({
      ok: true,
      addresses: [{ address: '2606:4700::1111', family: 6 }],
    });
    expect(await checkWebhookUrl('https://93.184.215.14/hook', policy)).toEqual({
      ok: true,
      addresses: [{ address: '93.184.215.14', family: 4 }],
    });
  });

  it('when the server runs with the default policy, then a private address is refused', async () => {
    expect(await checkWebhookUrl('https://127.0.0.1/hook', dnsWebhookUrlPolicy())).toEqual({
      ok: false,
      reason: expect.stringMatching(/^it resolves to a loopback address, not a public one/),
    });
  });

  it('when a resolver answers something that is not an address, then it is refused', () => {
    expect(addressRefusal('localhost', { allowPrivateAddresses: true })).toBe('localhost is not an IP address');
  });
});
