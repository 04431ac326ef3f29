import { describe, expect, it } from 'vitest';
import { adminInvocation, serverBaseUrl, shellWord, withoutPassword } from '../../src/cli/admin-invocation.js';
import { loadConfig } from '../../src/config.js';

const bootstrap = 'bootstrap --workspace "Acme" --plan business';

describe('the admin command printed by the start banner', () => {
  it('when the server runs with the defaults on the default port, then the command carries no variables', () => {
    expect(adminInvocation(loadConfig({}), 8443, bootstrap)).toBe(`npm run admin -- ${bootstrap}`);
  });

  it('when PORT=0 gave the server another port, then the command names the real one', () => {
    expect(adminInvocation(loadConfig({ PORT: '0' }), 40123, bootstrap)).toBe(`PORT=40123 npm run admin -- ${bootstrap}`);
  });

  it('when the data lives in another DATA_DIR, then the command names it, quoted when the shell would split it', () => {
    expect(adminInvocation(loadConfig({ DATA_DIR: '/srv/form funnel' }), 8443, bootstrap)).toBe(
      `DATA_DIR='/srv/form funnel' npm run admin -- ${bootstrap}`,
    );
  });

  it('when DATABASE_URL is set, then the command names it with the password replaced, and DATA_DIR is left out', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://app:s3cret@db.internal:5432/funnel?sslmode=require', DATA_DIR: '/srv/data' });
    const command = adminInvocation(config, 8443, bootstrap);
    expect(command).toBe(`DATABASE_URL='postgres://app:<password>@db.internal:5432/funnel?sslmode=require' npm run admin -- ${bootstrap}`);
    expect(command).not.toContain('s3cret');
  });

  it('when PUBLIC_BASE_URL is set, then the command names it instead of the port', () => {
    expect(adminInvocation(loadConfig({ PUBLIC_BASE_URL: 'https://api.acme.test', PORT: '9443' }), 9443, bootstrap)).toBe(
      `PUBLIC_BASE_URL=https://api.acme.test npm run admin -- ${bootstrap}`,
    );
  });

  it('when a URL has no password, then it is printed as it is', () => {
    expect(withoutPassword('postgres://postgres@127.0.0.1:5432/funnel')).toBe('postgres://postgres@127.0.0.1:5432/funnel');
  });

  it('when a value holds a single quote, then the shell word gives it back whole', () => {
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord('./data')).toBe('./data');
  });
});

describe('the address the banner and the admin command print', () => {
  it('when PUBLIC_BASE_URL is unset, then it is localhost on the port given, not the default one', () => {
    expect(serverBaseUrl(loadConfig({ PORT: '9000' }), 9000)).toBe('https://localhost:9000');
    expect(serverBaseUrl(loadConfig({ PORT: '0' }), 40123)).toBe('https://localhost:40123');
  });

  it('when PUBLIC_BASE_URL is set, then it is that URL whatever the port', () => {
    expect(serverBaseUrl(loadConfig({ PUBLIC_BASE_URL: 'https://api.acme.test', PORT: '9000' }), 9000)).toBe('https://api.acme.test');
  });

  it('when PUBLIC_BASE_URL ends in slashes, then they are dropped, so that the base and /v1 make one path', () => {
    expect(serverBaseUrl(loadConfig({ PUBLIC_BASE_URL: 'https://api.acme.test/' }), 8443)).toBe('https://api.acme.test');
    expect(serverBaseUrl(loadConfig({ PUBLIC_BASE_URL: 'https://acme.test/funnel//' }), 8443)).toBe('https://acme.test/funnel');
  });
});
