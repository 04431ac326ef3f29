import { describe, expect, it } from 'vitest';
import { dashboardPolicy } from '../src/http/dashboard-page.js';

describe('the dashboard page’s policy', () => {
  it('when no public base URL is set, then images come from the page’s own origin and data: only', () => {
    expect(dashboardPolicy()).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
  });

  it('when the public base URL is another origin, then its logos are allowed as images, by origin, and nothing else changes', () => {
    const policy = dashboardPolicy('https://forms.acme.example:8443/base/');
    expect(policy).toContain("img-src 'self' data: https://forms.acme.example:8443;");
    expect(policy.replace(' https://forms.acme.example:8443', '')).toBe(dashboardPolicy());
  });
});
