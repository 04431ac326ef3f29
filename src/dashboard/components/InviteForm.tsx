import { useState } from 'preact/hooks';
import type { InviteCreate } from '../../client/schemas.js';
import { type MemberRole, roleWords } from '../roles.js';
import { useAction } from '../use-action.js';
import { ChoiceField } from './ChoiceField.js';
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
      <ChoiceField
        id={ids.role}
        label="Role"
        value={role}
        options={Object.entries(roleWords).map(([value, words]) => ({
          value: value as MemberRole,
          label: `${words.name}: ${words.allows}`,
        }))}
        onChange={setRole}
        error={action.error}
        pointer="/role"
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Send invitation
        </button>
      </div>
      <p role="status">{sent}</p>
    </form>
  );
}
