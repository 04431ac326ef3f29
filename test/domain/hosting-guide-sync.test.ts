/**
 * The "Host a form" guide against the code it describes, in the way of spec-sync.test.ts: the Content-Security-Policy
 * it states is the one the pages are served with, the embed snippet's attributes are the ones the embed script
 * reads, and the pages it documents stay out of the OpenAPI document's paths (they are HTML and script outside /v1).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pagePolicy, plainPagePolicy } from '../../src/http/hosted-pages.js';
import { valueAt } from '../support/openapi-files.js';

const read = (path: string): string => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');
/** The guide with its lines joined: a header value may be wrapped across two. */
const guide = read('openapi/guides/hosting.md').replace(/\s*\n\s*/g, ' ');

/** Every policy the guide gives as `Content-Security-Policy: …` in code. */
const statedPolicies = (): string[] => [...guide.matchAll(/`Content-Security-Policy: ([^`]+)`/g)].map(([, policy]) => policy!);

describe('the "Host a form" guide agrees with the code', () => {
  it('when the guide states the pages’ Content-Security-Policy, then it is the page’s (framed by no one) and the plain pages’', () => {
    expect(statedPolicies()).toEqual([pagePolicy([]), plainPagePolicy]);
  });

  it('when the guide shows the embed snippet, then each data- attribute it sets is one the embed script reads, and each it reads is in the guide', () => {
    const snippet = /<script src="[^"]*\/embed\.js"[^>]*>/.exec(guide)?.[0];
    expect(snippet).toBeDefined();
    const set = [...snippet!.matchAll(/ data-([a-z-]+)=/g)].map(([, name]) => name!);
    expect(set).toEqual(['form', 'key']);
    const embed = read('src/hosted/page/embed.ts');
    const readByScript = [...new Set([...embed.matchAll(/\bdataset\.([a-zA-Z]+)/g)].map(([, name]) => name!))];
    for (const name of set) expect(readByScript).toContain(name);
    for (const name of readByScript) expect(guide).toContain(`data-${name}`);
  });

  it('when the document lists its paths, then the hosted pages and the embed script are not among them', () => {
    const paths = Object.keys(valueAt('openapi', 'paths') as Record<string, unknown>);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((path) => /^\/(f|embed\.js)(\/|$)/.test(path))).toEqual([]);
  });
});
