/**
 * Screens have addresses (`/dashboard/leads?grade=A`), so that a person can reload, bookmark and go back. The route is
 * a signal over the address bar; `navigate` changes both. Query parameters carry a screen's filters.
 *
 * A screen with unsaved work registers a leave guard (`useLeaveGuard`): leaving it by a link, `navigate` or the
 * browser's Back asks first (the browser's own confirm dialog, which every screen reader announces), and staying
 * keeps the screen and its address as they were.
 */
import { signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';

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

/** The address the route shows (path and query), to go back to when a person stays after pressing Back. */
let shown = `${location.pathname}${location.search}`;
const show = (): void => {
  shown = `${location.pathname}${location.search}`;
  route.value = read();
};

/** A screen's question before it is left: its message while it has unsaved work, undefined otherwise. */
type LeaveGuard = () => string | undefined;
const guards = new Set<LeaveGuard>();

/**
 * While `hasUnsavedWork()` is true, leaving this screen inside the dashboard asks `message` first. The function is
 * asked at the moment of leaving, so it reads the latest state.
 */
export function useLeaveGuard(hasUnsavedWork: () => boolean, message: string): void {
  const latest = useRef({ hasUnsavedWork, message });
  latest.current = { hasUnsavedWork, message };
  useEffect(() => {
    const guard: LeaveGuard = () => (latest.current.hasUnsavedWork() ? latest.current.message : undefined);
    guards.add(guard);
    return () => {
      guards.delete(guard);
    };
  }, []);
}

/** True when no screen has unsaved work, or the person chose to leave it. */
function mayLeave(): boolean {
  for (const guard of guards) {
    const message = guard();
    if (message !== undefined && !confirm(message)) return false;
  }
  return true;
}

addEventListener('popstate', () => {
  // A fragment link (Skip to content) stays on the screen.
  if (`${location.pathname}${location.search}` === shown) return;
  // Back (or Forward) has already changed the address: staying puts it back.
  if (mayLeave()) show();
  else history.pushState(null, '', shown);
});

/** `to` is below the dashboard (`leads?grade=A`) or absolute (`/dashboard/leads`). */
export function hrefOf(to: string): string {
  return to.startsWith('/') ? to : `${dashboardBase}${to}`;
}

/** Goes to `to`, unless a screen with unsaved work is left and the person chooses to stay: then false. */
export function navigate(to: string, options: { replace?: boolean } = {}): boolean {
  const href = hrefOf(to);
  if (href !== shown && !mayLeave()) return false;
  if (options.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  show();
  if (!options.replace) document.getElementById('main')?.focus();
  return true;
}

/** Replaces the query of the current address (a filter changed) without a new history entry per keystroke. */
export function setQuery(query: URLSearchParams): void {
  const search = query.toString();
  history.replaceState(null, '', `${location.pathname}${search ? `?${search}` : ''}`);
  show();
}
