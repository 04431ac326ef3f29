/**
 * The words of keys the screens show: environments, scopes and statuses. Records over the contract's enums, so a value
 * the contract adds is a compile error here until it is named.
 */
import type { Schema } from '../client/schemas.js';

export type Environment = Schema<'Environment'>;
export type Scope = Schema<'Scope'>;
export type ApiKeyStatus = Schema<'ApiKeyStatus'>;

const choices = <Value extends string>(words: Record<Value, string>) =>
  (Object.entries(words) as Array<[Value, string]>).map(([value, label]) => ({ value, label }));

export const environmentChoices = choices<Environment>({ live: 'Live', test: 'Test' });
/** In the contract's order, smallest first: "give the smallest that does the job". */
export const scopeChoices = choices<Scope>({
  read: 'read: GET requests only',
  read_write: 'read_write: forms, folders, submissions and integrations',
  admin: 'admin: everything, including API keys, team members and test data',
});
export const keyStatusChoices = choices<ApiKeyStatus>({ active: 'Active', revoked: 'Revoked' });
