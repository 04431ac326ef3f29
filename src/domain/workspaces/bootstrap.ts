/**
 * Creating a workspace with its first admin keys: what the dashboard does at sign-up. The admin command
 * (`npm run admin -- bootstrap`) and the tests use it; the API has no operation for it.
 */
import type { Plan, Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import { isEmail } from '../email.js';
import { generateSecret, hashSecret, secretHint } from '../keys/secret.js';
import { type Services, timestamp } from '../services.js';

/** The first admin's address is not one the contract's Email format accepts. */
export class InvalidAdminEmail extends Error {
  constructor(readonly email: string) {
    super(`${email} is not an email address the API accepts (it needs a domain with a dot, like you@example.com).`);
    this.name = 'InvalidAdminEmail';
  }
}

export interface BootstrappedWorkspace {
  workspace_id: string;
  live_admin_key: string;
  test_admin_key: string;
}

export async function bootstrapWorkspace(
  services: Services,
  input: { name: string; plan: Plan; adminEmail?: string | undefined },
): Promise<BootstrappedWorkspace> {
  // The API answers this address in `GET /v1/team/members`: one it would refuse there is refused here.
  if (input.adminEmail !== undefined && !isEmail(input.adminEmail)) throw new InvalidAdminEmail(input.adminEmail);
  const now = timestamp(services);
  const workspaceId = newId('ws');
  await services.store.workspaces.create({ id: workspaceId, name: input.name, plan: input.plan, createdAt: now });
  if (input.adminEmail) {
    await services.store.team.addMember(workspaceId, {
      id: newId('mem'),
      object: 'member',
      email: input.adminEmail,
      name: null,
      role: 'admin',
      created_at: now,
    });
  }
  const secrets = { live: '', test: '' };
  for (const environment of ['live', 'test'] as const) {
    const secret = generateSecret(environment);
    secrets[environment] = secret;
    const key: Schema<'ApiKey'> = {
      id: newId('key'),
      object: 'api_key',
      name: `First ${environment} admin key`,
      environment,
      scope: 'admin',
      attachment: { type: 'workspace' },
      expires_at: null,
      ip_allowlist: [],
      status: 'active',
      revoked_at: null,
      revocation_reason: null,
      revocation_cause: null,
      secret_hint: secretHint(secret),
      last_used_at: null,
      created_at: now,
    };
    await services.store.apiKeys.create(
      { key, workspaceId, secretHash: hashSecret(secret) },
      {
        workspaceId,
        environment,
        type: 'api_key.created',
        actor: { type: 'system', id: null, name: null },
        target: { type: 'api_key', id: key.id, name: key.name },
        reason: 'workspace bootstrap',
        at: now,
      },
    );
  }
  return { workspace_id: workspaceId, live_admin_key: secrets.live, test_admin_key: secrets.test };
}
