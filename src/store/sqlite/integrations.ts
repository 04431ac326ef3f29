import type Database from 'better-sqlite3';
import type { IntegrationStore } from '../integration-store.js';

/** Statements that delete a form's rows of this module (parameter: the form id), run inside the form's cascade. */
export const integrationFormCascade: string[] = [];
/** Test-mode rows of a workspace (parameter: workspace id), with the count they report. */
export const integrationTestData: Array<{ counts: 'integrations' | 'integration_logs' | null; sql: string }> = [];

export function sqliteIntegrations(_db: Database.Database): IntegrationStore {
  return {};
}
