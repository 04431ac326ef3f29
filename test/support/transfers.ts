/** Moving a form between workspaces the way clients do it: offered by the sender, accepted by the destination. */
import { expect } from 'vitest';
import type { TestApi } from './harness.js';

export async function moveForm(
  api: Pick<TestApi, 'call'>,
  formId: string,
  destination: { workspace_id: string; live_admin_key: string },
  senderKey?: string,
): Promise<{ id: string; status: string }> {
  const offered = await api.call('post', `/v1/forms/${formId}/transfer`, senderKey).send({ workspace_id: destination.workspace_id });
  expect(offered.status).toBe(201);
  const accepted = await api.call('post', `/v1/transfers/${offered.body.id}/accept`, destination.live_admin_key);
  expect(accepted.status).toBe(200);
  return accepted.body;
}
