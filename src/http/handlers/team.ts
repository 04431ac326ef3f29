import * as team from '../../domain/team/service.js';
import { listBody, pageOf } from './pagination.js';
import type { Handler } from './types.js';

export const listMembers: Handler<'listMembers'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(team.listMembers(services, principal, pageOf(query))),
});

export const removeMember: Handler<'removeMember'> = async ({ services, principal, params }) => {
  await team.removeMember(services, principal, params.id);
  return { status: 200, body: { id: params.id, object: 'member', deleted: true } };
};

export const listInvites: Handler<'listInvites'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(team.listInvites(services, principal, { status: query.status }, pageOf(query))),
});

export const createInvite: Handler<'createInvite'> = ({ replayable, principal, body }) =>
  replayable(
    (services) => team.createInvite(services, principal, body),
    (invite) => ({ status: 201, body: invite, headers: { Location: `/v1/team/invites/${invite.id}` } }),
  );

export const revokeInvite: Handler<'revokeInvite'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await team.revokeInvite(services, principal, params.id),
});

export const resendInvite: Handler<'resendInvite'> = ({ replayable, principal, params }) =>
  replayable(
    (services) => team.resendInvite(services, principal, params.id),
    (invite) => ({ status: 200, body: invite }),
  );
