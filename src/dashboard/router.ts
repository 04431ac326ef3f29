/**
 * Screens have addresses (`/dashboard/leads?grade=A`), so that a person can reload, bookmark and go back. The route is
 * a signal over the address bar; `navigate` changes both. Query parameters carry a screen's filters.
 */
import { signal } from '@preact/signals';

export const dashboardBase = '/dashboard/';

export interface Route {
  /** The path below the dashboard, split: `['forms', 'frm_…']`. */
  segments: string[];
  query: URLSearchParams;
}

const read = (): Route => ({
  segments: location.pathname.startsWith(dashboardBase)
    ? location.pathname.slice(dashboardBase.length).split('/').filter(Boolean).map(decodeURIComponent)
    : [],
  query: new URLSearchParams(location.search),
});

export const route = signal<Route>(read());

addEventListener('popstate', () => {
  route.value = read();
});

/** `to` is below the dashboard (`leads?grade=A`) or absolute (`/dashboard/leads`). */
export function hrefOf(to: string): string {
  return to.startsWith('/') ? to : `${dashboardBase}${to}`;
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const href = hrefOf(to);
  if (options.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  route.value = read();
  if (!options.replace) document.getElementById('main')?.focus();
}

/** Replaces the query of the current address (a filter changed) without a new history entry per keystroke. */
export function setQuery(query: URLSearchParams): void {
  const search = query.toString();
  history.replaceState(null, '', `${location.pathname}${search ? `?${search}` : ''}`);
  route.value = read();
}
