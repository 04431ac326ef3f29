import { describe, expect, it } from 'vitest';
import { checkAllowedOrigins } from '../../src/domain/public/allowed-origins.js';

const codes = (origins: string[], environment: 'live' | 'test') =>
  checkAllowedOrigins(origins, environment).map((issue) => `${issue.pointer} ${issue.code}`);

describe('checkAllowedOrigins', () => {
  it('when origins are written as browsers send them, then there is no issue', () => {
    expect(codes(['https://www.acme.example', 'https://acme.example:8443', 'https://xn--bcher-kva.example'], 'live')).toEqual([]);
    expect(codes(['http://localhost', 'http://localhost:5173', 'http://127.0.0.1:8080'], 'test')).toEqual([]);
  });

  it('when an origin is not what a browser sends (a default port, a port out of range), then invalid_origin', () => {
    expect(codes(['https://acme.example:443', 'https://acme.example:70000', 'http://localhost:80'], 'test')).toEqual([
      '/allowed_origins/0 invalid_origin',
      '/allowed_origins/1 invalid_origin',
      '/allowed_origins/2 invalid_origin',
    ]);
  });

  it('when a live key allows plain HTTP, even for localhost, then insecure_origin', () => {
    expect(codes(['http://localhost:5173', 'http://127.0.0.1'], 'live')).toEqual([
      '/allowed_origins/0 insecure_origin',
      '/allowed_origins/1 insecure_origin',
    ]);
  });
});
