import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { backoffWithBase, defaultBackoff, retryDelayMs } from '../src/domain/integrations/retry-schedule.js';

describe('TRUSTED_PROXIES', () => {
  it('when entries are addresses and ranges, then they are trusted as given', () => {
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.1, 10.1.0.0/16,2001:db8::/32' }).trustedProxies).toEqual([
      '10.0.0.1',
      '10.1.0.0/16',
      '2001:db8::/32',
    ]);
  });

  it.each(['0177.0.0.1', '10.1', 'proxy.internal', '10.0.0.0/33'])(
    'when an entry is %s, then the server refuses to start rather than trust the wrong address',
    (entry) => {
      expect(() => loadConfig({ TRUSTED_PROXIES: `10.0.0.1,${entry}` })).toThrow(`TRUSTED_PROXIES: ${entry} is not`);
    },
  );
});

describe('WEBHOOK_RETRY_BASE_MS', () => {
  it('when unset, then the webhook retries follow the default schedule (the first within 5 minutes)', () => {
    const backoff = backoffWithBase(loadConfig({}).webhookRetryBaseMs);
    expect(backoff).toEqual(defaultBackoff);
    expect(retryDelayMs(1, backoff, () => 0.999)).toBe(Math.floor(0.999 * 5 * 60_000));
  });

  it('when set to 1000 for local development, then the retries come within seconds, the floor never above the base', () => {
    const backoff = backoffWithBase(loadConfig({ WEBHOOK_RETRY_BASE_MS: '1000' }).webhookRetryBaseMs);
    const top = () => 0.999;
    expect([1, 2, 3].map((attempt) => retryDelayMs(attempt, backoff, top))).toEqual([1000, 1998, 3996]);
    expect(retryDelayMs(1, backoff, () => 0)).toBe(1000);
    expect(retryDelayMs(1, backoffWithBase(50), () => 0)).toBe(50);
  });

  it.each(['0', 'fast', '1.5'])('when it is %s, then the server refuses to start with a message naming it', (value) => {
    expect(() => loadConfig({ WEBHOOK_RETRY_BASE_MS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_RETRY_BASE_MS: value })).toThrow(/^WEBHOOK_RETRY_BASE_MS must be a whole number/);
  });
});

describe('PUBLIC_BASE_URL', () => {
  it('when it is an https URL, then it is kept as given; when it is no http(s) URL, then the service refuses to start', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://forms.acme.example/' }).publicBaseUrl).toBe('https://forms.acme.example/');
    expect(loadConfig({}).publicBaseUrl).toBeNull();
    for (const value of ['forms.acme.example', 'ftp://forms.acme.example']) {
      expect(() => loadConfig({ PUBLIC_BASE_URL: value })).toThrow(ConfigError);
    }
  });
});

describe('DATABASE_POOL_SIZE', () => {
  it('when unset, then each process opens up to 10 connections; when set, then that many', () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ DATABASE_POOL_SIZE: '4' }).databasePoolSize).toBe(4);
  });

  it.each(['0', '-1', 'many', '2.5', '1001'])('when it is %s, then the server refuses to start with a message naming it', (value) => {
    expect(() => loadConfig({ DATABASE_POOL_SIZE: value })).toThrow(/^DATABASE_POOL_SIZE must be a whole number from 1 to 1000/);
  });
});

describe('PUBLIC_RATE_LIMIT_PER_WORKSPACE_PER_MINUTE', () => {
  it("when unset, then publishable keys get a workspace budget as large as the secret keys' default; when set, then that", () => {
    expect(loadConfig({}).rateLimits.publicPerWorkspacePerMinute).toBe(loadConfig({}).rateLimits.perWorkspacePerMinute);
    expect(loadConfig({ PUBLIC_RATE_LIMIT_PER_WORKSPACE_PER_MINUTE: '500' }).rateLimits).toMatchObject({
      publicPerWorkspacePerMinute: 500,
      perWorkspacePerMinute: 10_000,
    });
  });

  it.each(['0', 'lots', '2.5'])('when it is %s, then the server refuses to start with a message naming it', (value) => {
    expect(() => loadConfig({ PUBLIC_RATE_LIMIT_PER_WORKSPACE_PER_MINUTE: value })).toThrow(
      /^PUBLIC_RATE_LIMIT_PER_WORKSPACE_PER_MINUTE must be a whole number from 1 to/,
    );
  });
});

describe('RATE_LIMIT_IPV6_PREFIX_LENGTH', () => {
  it('when unset, then IPv6 clients are counted by their /64; when set, then by that network', () => {
    expect(loadConfig({}).rateLimits.ipv6PrefixLength).toBe(64);
    expect(loadConfig({ RATE_LIMIT_IPV6_PREFIX_LENGTH: '56' }).rateLimits.ipv6PrefixLength).toBe(56);
    expect(loadConfig({ RATE_LIMIT_IPV6_PREFIX_LENGTH: '128' }).rateLimits.ipv6PrefixLength).toBe(128);
  });

  it.each(['31', '129', '0', '/64'])(
    'when it is %s, then the server refuses to start rather than count unrelated clients as one',
    (value) => {
      expect(() => loadConfig({ RATE_LIMIT_IPV6_PREFIX_LENGTH: value })).toThrow(
        /^RATE_LIMIT_IPV6_PREFIX_LENGTH must be a whole number from 32 to 128/,
      );
    },
  );
});

describe('SMTP_URL and MAIL_FROM', () => {
  it('when SMTP_URL is unset, then mail goes to files (null) from Form-Funnel <no-reply@localhost>', () => {
    expect(loadConfig({})).toMatchObject({ smtpUrl: null, mailFrom: 'Form-Funnel <no-reply@localhost>' });
  });

  it.each(['smtp://mailer:s3cret@smtp.acme.example:587', 'smtps://smtp.acme.example'])('when SMTP_URL is %s, then it is kept', (url) => {
    expect(loadConfig({ SMTP_URL: url, MAIL_FROM: '"Acme, Inc." <forms@acme.example>' })).toMatchObject({
      smtpUrl: url,
      mailFrom: '"Acme, Inc." <forms@acme.example>',
    });
  });

  it.each(['https://smtp.acme.example', 'smtp.acme.example:587', 'smtp:smtp.acme.example', 'smtps://:hunter2@/'])(
    'when SMTP_URL is %s, then the server refuses to start with a message that names it and repeats no password',
    (url) => {
      expect(() => loadConfig({ SMTP_URL: url })).toThrow(ConfigError);
      expect(() => loadConfig({ SMTP_URL: url })).toThrow(/^SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL with a host/);
      expect(() => loadConfig({ SMTP_URL: url })).not.toThrow(/hunter2|acme/);
    },
  );

  it.each(['', 'forms', 'Acme <forms>', 'a@acme.example, b@acme.example', 'Acme <@acme.example>'])(
    'when MAIL_FROM is "%s", then the server refuses to start with a message naming it',
    (from) => {
      expect(() => loadConfig({ MAIL_FROM: from })).toThrow(/^MAIL_FROM must be one address/);
    },
  );
});
