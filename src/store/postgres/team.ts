import type pg from 'pg';
import { RecordNotFound, StoreConflict } from '../errors.js';
import { type InviteRow, type MemberRow, toInvite, toMember } from '../rows/team.js';
import { oauthSql } from '../sql/oauth.js';
import { peopleSql } from '../sql/people.js';
import { inviteParameters, memberParameters, teamSql } from '../sql/team.js';
import type { TeamStore } from '../types.js';
import { insertAuditEvent } from './audit-events.js';
import { all, inTransaction, isUniqueViolation, one, Parameters, type Queryable, run } from './database.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';

const expireInvites = (db: Queryable, workspaceId: string, now: string) =>
  run(db, ...teamSql.expireInvites.bindPostgres({ workspaceId, now }));

const getInvite = (db: Queryable, workspaceId: string, id: string) =>
  one<InviteRow>(db, ...teamSql.getInvite.bindPostgres({ id, workspaceId }));

export function postgresTeam(pool: pg.Pool): TeamStore {
  return {
    async listMembers(workspaceId, page) {
      const params = new Parameters();
      const result = await keysetPage<MemberRow>(pool, {
        from: 'members m',
        alias: 'm',
        select: 'm.*',
        where: `m.workspace_id = ${params.add(workspaceId)}`,
        params,
        page,
      });
      return { data: result.data.map(toMember), hasMore: result.hasMore };
    },
    async getMember(workspaceId, id) {
      const row = await one<MemberRow>(pool, ...teamSql.getMember.bindPostgres({ id, workspaceId }));
      return row && toMember(row);
    },
    async addMember(workspaceId, member) {
      await run(pool, ...teamSql.insertMember.bindPostgres(memberParameters(workspaceId, member)));
    },
    async removeMember(workspaceId, id, audit) {
      await inTransaction(pool, async (client) => {
        // The workspace's admins and the member are locked together, in id order so that two removals cannot
        // deadlock: of two admins removed at once, the second sees the first gone and is refused.
        const locked = await all<MemberRow>(
          client,
          `SELECT * FROM members WHERE workspace_id = $1 AND (role = 'admin' OR id = $2) ORDER BY id COLLATE "C" FOR UPDATE`,
          [workspaceId, id],
        );
        const member = locked.find((row) => row.id === id);
        if (!member) throw new RecordNotFound('member', id);
        if (member.role === 'admin' && locked.filter((row) => row.role === 'admin').length <= 1) throw new StoreConflict('last_admin');
        // Their grants and the sessions of their account end with the membership; the grants before the row goes
        // (its foreign key then clears their member_id). A consent in flight holds the member's row (the grant's
        // foreign key) and the lock above waited for it: its grant is revoked here too.
        const removed = { memberId: id, email: member.email, at: audit.at };
        await run(client, ...oauthSql.revokeMemberGrants.bindPostgres(removed));
        await run(client, ...oauthSql.revokeMemberAccessTokens.bindPostgres(removed));
        await run(client, ...oauthSql.revokeMemberRefreshTokens.bindPostgres(removed));
        await run(client, ...peopleSql.endSessionsOfEmail.bindPostgres(removed));
        await run(client, ...teamSql.deleteMember.bindPostgres({ id }));
        await insertAuditEvent(client, audit);
      });
    },
    async listInvites(workspaceId, filter, page, now) {
      await expireInvites(pool, workspaceId, now);
      const params = new Parameters();
      const where = [`i.workspace_id = ${params.add(workspaceId)}`];
      if (filter.status !== undefined) where.push(`i.status = ${params.add(filter.status)}`);
      const result = await keysetPage<InviteRow>(pool, {
        from: 'invites i',
        alias: 'i',
        select: 'i.*',
        where: where.join(' AND '),
        params,
        page,
      });
      return { data: result.data.map(toInvite), hasMore: result.hasMore };
    },
    async getInvite(workspaceId, id, now) {
      await expireInvites(pool, workspaceId, now);
      const row = await getInvite(pool, workspaceId, id);
      return row && toInvite(row);
    },
    async createInvite(workspaceId, invite, audit, outbox) {
      try {
        await withOutbox(pool, outbox, async (client) => {
          await expireInvites(client, workspaceId, invite.created_at);
          const invited = inviteParameters(workspaceId, invite);
          const member = await one(client, ...teamSql.memberWithEmail.bindPostgres(invited));
          const pending = await one(client, ...teamSql.pendingInviteWithEmail.bindPostgres(invited));
          if (member || pending) throw new StoreConflict('member_exists');
          await run(client, ...teamSql.insertInvite.bindPostgres(invited));
          await insertAuditEvent(client, audit);
        });
      } catch (error) {
        // A concurrent invite of the same email got in first: the partial unique index on pending invites decides.
        if (isUniqueViolation(error, 'invites_pending_email')) throw new StoreConflict('member_exists');
        throw error;
      }
    },
    async revokeInvite(workspaceId, id, at, audit) {
      return inTransaction(pool, async (client) => {
        const changed = await run(client, ...teamSql.revokeInvite.bindPostgres({ at, id, workspaceId }));
        if (changed === 1) await insertAuditEvent(client, audit);
        const row = await getInvite(client, workspaceId, id);
        return row && toInvite(row);
      });
    },
    async renewInvite(workspaceId, id, expiresAt, audit) {
      try {
        return await inTransaction(pool, async (client) => {
          await expireInvites(client, workspaceId, audit.at);
          const row = await one<InviteRow>(client, ...teamSql.getInviteForRenewal.bindPostgres({ id, workspaceId }));
          if (!row) return undefined;
          if (row.status !== 'pending' && row.status !== 'expired') throw new StoreConflict('invite_closed');
          const invited = { id, workspaceId, email: row.email };
          const member = await one(client, ...teamSql.memberWithEmail.bindPostgres(invited));
          const pending = await one(client, ...teamSql.otherPendingInviteWithEmail.bindPostgres(invited));
          if (member || pending) throw new StoreConflict('member_exists');
          await run(client, ...teamSql.renewInvite.bindPostgres({ id, workspaceId, expiresAt }));
          await insertAuditEvent(client, audit);
          return toInvite((await getInvite(client, workspaceId, id))!);
        });
      } catch (error) {
        // An invite of the same email made pending meanwhile: the partial unique index on pending invites decides.
        if (isUniqueViolation(error, 'invites_pending_email')) throw new StoreConflict('member_exists');
        throw error;
      }
    },
  };
}
