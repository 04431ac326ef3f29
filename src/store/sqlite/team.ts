import type Database from 'better-sqlite3';
import { RecordNotFound, StoreConflict } from '../errors.js';
import { type InviteRow, type MemberRow, toInvite, toMember } from '../rows/team.js';
import { oauthSql } from '../sql/oauth.js';
import { peopleSql } from '../sql/people.js';
import { inviteParameters, memberParameters, teamSql } from '../sql/team.js';
import type { TeamStore } from '../types.js';
import { insertAuditEvent } from './audit-events.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { prepared } from './shared-sql.js';
import { statement, transaction } from './statements.js';

export function sqliteTeam(db: Database.Database): TeamStore {
  const expireInvites = (workspaceId: string, now: string): void => {
    prepared(db, teamSql.expireInvites).run({ workspaceId, now });
  };
  const getMember = (workspaceId: string, id: string) => prepared(db, teamSql.getMember).get({ id, workspaceId }) as MemberRow | undefined;
  const getInvite = (workspaceId: string, id: string) => prepared(db, teamSql.getInvite).get({ id, workspaceId }) as InviteRow | undefined;
  return {
    async listMembers(workspaceId, page) {
      const result = keysetPage<MemberRow>(db, {
        from: 'members m',
        alias: 'm',
        select: 'm.*',
        where: 'm.workspace_id = ?',
        params: [workspaceId],
        page,
      });
      return { data: result.data.map(toMember), hasMore: result.hasMore };
    },
    async getMember(workspaceId, id) {
      const row = getMember(workspaceId, id);
      return row && toMember(row);
    },
    async addMember(workspaceId, member) {
      prepared(db, teamSql.insertMember).run(memberParameters(workspaceId, member));
    },
    async removeMember(workspaceId, id, audit) {
      return transaction(db, 'immediate', () => {
        const row = getMember(workspaceId, id);
        if (!row) throw new RecordNotFound('member', id);
        if (row.role === 'admin') {
          const admins = statement(db, `SELECT COUNT(*) AS n FROM members WHERE workspace_id = ? AND role = 'admin'`).get(workspaceId) as {
            n: number;
          };
          if (admins.n <= 1) throw new StoreConflict('last_admin');
        }
        // Their grants and the sessions of their account end with the membership; the grants before the row goes
        // (its foreign key then clears their member_id).
        const removed = { memberId: id, email: row.email, at: audit.at };
        prepared(db, oauthSql.revokeMemberGrants).run(removed);
        prepared(db, oauthSql.revokeMemberAccessTokens).run(removed);
        prepared(db, oauthSql.revokeMemberRefreshTokens).run(removed);
        prepared(db, peopleSql.endSessionsOfEmail).run(removed);
        prepared(db, teamSql.deleteMember).run({ id });
        insertAuditEvent(db, audit);
      });
    },
    async listInvites(workspaceId, filter, page, now) {
      expireInvites(workspaceId, now);
      const where = ['i.workspace_id = ?'];
      const params: unknown[] = [workspaceId];
      if (filter.status !== undefined) {
        where.push('i.status = ?');
        params.push(filter.status);
      }
      const result = keysetPage<InviteRow>(db, { from: 'invites i', alias: 'i', select: 'i.*', where: where.join(' AND '), params, page });
      return { data: result.data.map(toInvite), hasMore: result.hasMore };
    },
    async getInvite(workspaceId, id, now) {
      expireInvites(workspaceId, now);
      const row = getInvite(workspaceId, id);
      return row && toInvite(row);
    },
    async createInvite(workspaceId, invite, audit, outbox) {
      withOutbox(db, outbox, () => {
        expireInvites(workspaceId, invite.created_at);
        const invited = inviteParameters(workspaceId, invite);
        const member = prepared(db, teamSql.memberWithEmail).get(invited);
        const pending = prepared(db, teamSql.pendingInviteWithEmail).get(invited);
        if (member || pending) throw new StoreConflict('member_exists');
        prepared(db, teamSql.insertInvite).run(invited);
        insertAuditEvent(db, audit);
      });
    },
    async revokeInvite(workspaceId, id, at, audit) {
      return transaction(db, 'immediate', () => {
        const changed = prepared(db, teamSql.revokeInvite).run({ at, id, workspaceId }).changes;
        if (changed === 1) insertAuditEvent(db, audit);
        const row = getInvite(workspaceId, id);
        return row && toInvite(row);
      });
    },
    async renewInvite(workspaceId, id, expiresAt, audit) {
      return transaction(db, 'immediate', () => {
        expireInvites(workspaceId, audit.at);
        const row = prepared(db, teamSql.getInviteForRenewal).get({ id, workspaceId }) as InviteRow | undefined;
        if (!row) return undefined;
        if (row.status !== 'pending' && row.status !== 'expired') throw new StoreConflict('invite_closed');
        const invited = { id, workspaceId, email: row.email };
        if (prepared(db, teamSql.memberWithEmail).get(invited) || prepared(db, teamSql.otherPendingInviteWithEmail).get(invited)) {
          throw new StoreConflict('member_exists');
        }
        prepared(db, teamSql.renewInvite).run({ id, workspaceId, expiresAt });
        insertAuditEvent(db, audit);
        return toInvite(getInvite(workspaceId, id)!);
      });
    },
  };
}
