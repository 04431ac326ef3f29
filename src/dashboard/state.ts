/**
 * The dashboard's shared state, as signals: who is signed in (the API's `Me`), the environment the tokens act in,
 * and the current route. A screen's own data is the API's objects, loaded by the screen (useResource).
 */
import { signal } from '@preact/signals';
import type { Me } from '../client/schemas.js';
import type { Api } from './api.js';
import type { DashboardSession, Environment } from './auth.js';
import type { DashboardConfig } from './config.js';

export const me = signal<Me | undefined>(undefined);
export const environment = signal<Environment>('live');

export interface Dashboard {
  api: Api;
  session: DashboardSession;
  config: DashboardConfig;
}

let current: Dashboard | undefined;
export const setDashboard = (dashboard: Dashboard): void => {
  current = dashboard;
};
/** The API client and session, set once at start (main.tsx) before anything renders. */
export function dashboard(): Dashboard {
  if (!current) throw new Error('The dashboard has not started');
  return current;
}
export const api = (): Api => dashboard().api;

/** A viewer (scope `read`) sees no edit controls; the API refuses them anyway. */
export const canEdit = (): boolean => me.value !== undefined && me.value.scope !== 'read';
export const isAdmin = (): boolean => me.value?.scope === 'admin';
