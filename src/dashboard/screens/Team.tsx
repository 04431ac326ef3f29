import { useState } from 'preact/hooks';
import type { InviteCreate } from '../../client/schemas.js';
import { unwrap } from '../api.js';
import { AdminOnly } from '../components/AdminOnly.js';
import { InviteForm } from '../components/InviteForm.js';
import { InviteTable } from '../components/InviteTable.js';
import { Loading } from '../components/Loading.js';
import { MemberTable } from '../components/MemberTable.js';
import { Pager } from '../components/Pager.js';
import { ProblemNotice } from '../components/ProblemNotice.js';
import { SelectFilter } from '../components/SelectFilter.js';
import { type Cursor, pagerOf, withFilter } from '../keyset.js';
import { type InviteStatus, inviteStatusWords } from '../roles.js';
import { route, setQuery } from '../router.js';
import { api, isAdmin, me } from '../state.js';
import { useResource } from '../use-resource.js';

/**
 * The team (`/dashboard/team`, admins only, as the contract's `admin` scope says): members and their roles, and
 * invitations (filtered by `?status=`), to send, send again or revoke.
 */
export function TeamScreen() {
  return (
    <section aria-labelledby="team-heading">
      <h1 id="team-heading">Team</h1>
      {isAdmin() ? <Team /> : <AdminOnly what="and manage the team" />}
    </section>
  );
}

function Team() {
  const query = route.value.query;
  const status = query.get('status') ?? '';
  const [memberCursor, setMemberCursor] = useState<Cursor>({});
  const [inviteCursor, setInviteCursor] = useState<Cursor>({});
  const members = useResource(
    async () => unwrap(await api().GET('/team/members', { params: { query: { limit: 50, ...memberCursor } } })),
    JSON.stringify(memberCursor),
  );
  const invites = useResource(
    async () => {
      const filter = status ? { status: status as InviteStatus } : {};
      return unwrap(await api().GET('/team/invites', { params: { query: { limit: 50, ...filter, ...inviteCursor } } }));
    },
    `${status}:${JSON.stringify(inviteCursor)}`,
  );

  const reloadInvites = () => (inviteCursor.starting_after || inviteCursor.ending_before ? setInviteCursor({}) : invites.reload());
  const invite = async (body: InviteCreate) => {
    unwrap(await api().POST('/team/invites', { body }));
    reloadInvites();
  };
  const path = (id: string) => ({ params: { path: { id } } });

  return (
    <>
      <section aria-labelledby="members-heading">
        <h2 id="members-heading">Members</h2>
        <ProblemNotice error={members.error} onRetry={members.reload} />
        {members.loading && !members.data && <Loading what="members" />}
        {members.data && (
          <>
            <MemberTable
              members={members.data.data}
              selfId={me.value?.member?.id}
              onRemove={async (member) => {
                unwrap(await api().DELETE('/team/members/{id}', path(member.id)));
                members.reload();
              }}
            />
            <Pager label="Member pages" {...pagerOf(memberCursor, members.data, setMemberCursor)} />
          </>
        )}
      </section>
      <section aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite someone</h2>
        <InviteForm onInvite={invite} />
      </section>
      <section aria-labelledby="invites-heading">
        <h2 id="invites-heading">Invitations</h2>
        <div class="settings-filters">
          <SelectFilter
            label="Status"
            anyLabel="Any status"
            value={status}
            options={Object.entries(inviteStatusWords).map(([value, label]) => ({ value, label }))}
            onChange={(value) => {
              setInviteCursor({});
              setQuery(withFilter(query, 'status', value));
            }}
          />
        </div>
        <ProblemNotice error={invites.error} onRetry={invites.reload} />
        {invites.loading && !invites.data && <Loading what="invitations" />}
        {invites.data && (
          <>
            <InviteTable
              invites={invites.data.data}
              onResend={async (invite) => {
                unwrap(await api().POST('/team/invites/{id}/resend', path(invite.id)));
                invites.reload();
              }}
              onRevoke={async (invite) => {
                unwrap(await api().DELETE('/team/invites/{id}', path(invite.id)));
                invites.reload();
              }}
            />
            <Pager label="Invitation pages" {...pagerOf(inviteCursor, invites.data, setInviteCursor)} />
          </>
        )}
      </section>
    </>
  );
}
