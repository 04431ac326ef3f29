import type Database from 'better-sqlite3';
import { RecordNotFound, StoreConflict } from '../errors.js';
import { type InviteRow, type MemberRow, toInvite, toMember } from '../rows/team.js';
import type { TeamStore } from '../types.js';
import { insertAuditEvent } from './audit-events.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { statement, transaction } from './statements.js';

export function sqliteTeam(db: Database.Database): TeamStore {
  // Invites past their expiry are reported as expired; the row is brought up to date when read.
  const expireInvites = (workspaceId: string): void => {
    statement(db, `UPDATE invites SET status = 'expired' WHERE workspace_id = ? AND status = 'pending' AND expires_at <= ?`).run(
      workspaceId,
      new Date().toISOString(),
    );
  };
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
      const row = statement(db, 'SELECT * FROM members WHERE id = ? AND workspace_id = ?').get(id, workspaceId) as MemberRow | undefined;
      return row && toMember(row);
    },
    async addMember(workspaceId, member) {
      statement(db, 'INSERT INTO members (id, workspace_id, email, name, role, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
        member.id,
        workspaceId,
        member.email.toLowerCase(),
        member.name,
        member.role,
        member.created_at,
      );
    },
    async removeMember(workspaceId, id, audit) {
      return transaction(db, 'immediate', () => {
        const row = statement(db, 'SELECT * FROM members WHERE id = ? AND workspace_id = ?').get(id, workspaceId) as MemberRow | undefined;
        if (!row) throw new RecordNotFound('member', id);
        if (row.role === 'admin') {
          const admins = statement(db, `SELECT COUNT(*) AS n FROM members WHERE workspace_id = ? AND role = 'admin'`).get(workspaceId) as {
            n: number;
          };
          if (admins.n <= 1) throw new StoreConflict('last_admin');
        }
        statement(db, 'DELETE FROM members WHERE id = ?').run(id);
        insertAuditEvent(db, audit);
      });
    },
    async listInvites(workspaceId, filter, page) {
      expireInvites(workspaceId);
      const where = ['i.workspace_id = ?'];
      const params: unknown[] = [workspaceId];
      if (filter.status !== undefined) {
        where.push('i.status = ?');
        params.push(filter.status);
      }
      const result = keysetPage<InviteRow>(db, { from: 'invites i', alias: 'i', select: 'i.*', where: where.join(' AND '), params, page });
      return { data: result.data.map(toInvite), hasMore: result.hasMore };
    },
    async getInvite(workspaceId, id) {
      expireInvites(workspaceId);
      const row = statement(db, 'SELECT * FROM invites WHERE id = ? AND workspace_id = ?').get(id, workspaceId) as InviteRow | undefined;
      return row && toInvite(row);
    },
    async createInvite(workspaceId, invite, audit, outbox) {
      withOutbox(db, outbox, () => {
        expireInvites(workspaceId);
        const email = invite.email.toLowerCase();
        const member = statement(db, 'SELECT 1 FROM members WHERE workspace_id = ? AND email = ?').get(workspaceId, email);
        const pending = statement(db, `SELECT 1 FROM invites WHERE workspace_id = ? AND email = ? AND status = 'pending'`).get(
          workspaceId,
          email,
        );
        if (member || pending) throw new StoreConflict('member_exists');
        statement(
          db,
          `INSERT INTO invites (id, workspace_id, email, role, status, expires_at, created_at) VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
        ).run(invite.id, workspaceId, email, invite.role, invite.expires_at, invite.created_at);
        insertAuditEvent(db, audit);
      });
    },
    async revokeInvite(workspaceId, id, at, audit) {
      return transaction(db, 'immediate', () => {
        const changed = statement(
          db,
          `UPDATE invites SET status = 'revoked', revoked_at = ? WHERE id = ? AND workspace_id = ? AND status = 'pending'`,
        ).run(at, id, workspaceId).changes;
        if (changed === 1) insertAuditEvent(db, audit);
        const row = statement(db, 'SELECT * FROM invites WHERE id = ? AND workspace_id = ?').get(id, workspaceId) as InviteRow | undefined;
        return row && toInvite(row);
      });
    },
  };
}
