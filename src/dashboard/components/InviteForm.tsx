import { useState } from 'preact/hooks';
import type { InviteCreate } from '../../client/schemas.js';
import { type MemberRole, roleWords } from '../roles.js';
import { useAction } from '../use-action.js';
import { FieldIssues } from './FieldIssues.js';
import { ProblemNotice } from './ProblemNotice.js';
import { TextField, uniqueId } from './TextField.js';

/** Invite someone by email with a role; the API emails the link. What was typed stays when the API refuses it. */
export function InviteForm(props: { onInvite: (invite: InviteCreate) => Promise<unknown> }) {
  const [ids] = useState(() => ({ email: uniqueId('invite-email'), role: uniqueId('invite-role') }));
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MemberRole>('editor');
  const [sent, setSent] = useState<string | undefined>(undefined);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    setSent(undefined);
    if (await action.run(() => props.onInvite({ email, role }))) {
      setSent(`Invitation emailed to ${email}, as ${roleWords[role].name.toLowerCase()}.`);
      setEmail('');
    }
  };
  return (
    <form class="settings-form" onSubmit={submit} noValidate>
      <ProblemNotice error={action.error} />
      <TextField
        id={ids.email}
        label="Email"
        type="email"
        required
        value={email}
        onInput={setEmail}
        error={action.error}
        pointer="/email"
      />
      <div class="field">
        <label for={ids.role}>Role</label>
        <select
          id={ids.role}
          value={role}
          aria-describedby={`${ids.role}-issues`}
          onChange={(e) => setRole(e.currentTarget.value as MemberRole)}
        >
          {Object.entries(roleWords).map(([value, words]) => (
            <option key={value} value={value}>
              {words.name}: {words.allows}
            </option>
          ))}
        </select>
        <FieldIssues id={`${ids.role}-issues`} error={action.error} pointer="/role" />
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Send invitation
        </button>
      </div>
      <p role="status">{sent}</p>
    </form>
  );
}
