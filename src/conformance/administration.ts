/**
 * The happy paths of a workspace's administration: keys (made, read, listed, revoked), the team's invites, and
 * transfers of a form to a second workspace (cancelled by the sender, declined and accepted by the receiver).
 */
import { exampleBody, uniqueEmail } from './examples.js';
import { expectListed, walkList } from './pagination.js';
import type { Session } from './session.js';
import { adminOnly, checkLocation, createForm, gone, idOf, keepMade, liveOnly, made, ok, readBack, whenMade } from './steps.js';
import type { World } from './world.js';

export async function apiKeys(session: Session, world: World): Promise<void> {
  if (!adminOnly(session, world, 'createApiKey', 'getApiKey', 'listApiKeys', 'revokeApiKey', 'listAuditEvents', 'getUsage')) return;
  // The example's key is attached to the run's form.
  if (whenMade(session, world, 'form', 'createApiKey', 'getApiKey')) {
    const body = exampleBody(session.contract, 'createApiKey', { form: world.ids.form });
    if (world.me) body.environment = world.me.environment;
    const key = await session.call('createApiKey', { body }, made('a key from the example'));
    checkLocation(session, 'createApiKey', key);
    keepMade(session, world, 'apiKey', 'createApiKey', key);
    if (whenMade(session, world, 'apiKey', 'getApiKey')) {
      await session.call('getApiKey', { path: { id: world.ids.apiKey } }, readBack('the key just made'));
    }
  }
  expectListed(session, 'listApiKeys', await walkList(session, 'listApiKeys'), world.ids.apiKey);

  // Keys of the run's own: one to revoke, one for --key-read when none was given, one to spend on the rate limit.
  const plainKey = async (name: string, scope: string) => {
    const answer = await session.call(
      'createApiKey',
      { body: { name: `${name} ${world.suffix}`, environment: world.me?.environment ?? 'test', scope } },
      made(`a ${scope} key`),
    );
    const secret = (answer?.json as { secret?: unknown } | undefined)?.secret;
    return { id: idOf(answer), secret: typeof secret === 'string' ? secret : undefined };
  };
  const doomed = await plainKey('Conformance revoked key', 'read');
  if (doomed.secret) {
    await session.call('getMe', { key: doomed.secret }, readBack('a key just made, used at once'));
    session.ran('createApiKey', 'ensure_resource_availability');
  }
  const revoked = await session.call(
    'revokeApiKey',
    { path: { id: doomed.id }, body: exampleBody(session.contract, 'revokeApiKey') },
    ok('revoking a key'),
  );
  if (revoked) world.revokedKey = doomed.secret;
  if (!world.keys.read) {
    world.keys.read = (await plainKey('Conformance read key', 'read')).secret;
    if (world.keys.read) session.runNote('no --key-read: the run made a read key to check scopes');
  }
  world.spareKey = (await plainKey('Conformance rate limit key', 'read')).secret;

  await walkList(session, 'listAuditEvents');
  await session.call('getUsage', {}, ok('the usage'));
}

export async function team(session: Session, world: World): Promise<void> {
  if (!adminOnly(session, world, 'listMembers', 'removeMember', 'createInvite', 'listInvites', 'resendInvite', 'revokeInvite')) return;
  await walkList(session, 'listMembers');
  if (!liveOnly(session, world, 'createInvite', 'resendInvite', 'revokeInvite', 'removeMember')) {
    await walkList(session, 'listInvites');
    return;
  }
  const body = exampleBody(session.contract, 'createInvite');
  body.email = uniqueEmail(String(body.email), world.suffix);
  const invite = await session.call('createInvite', { body }, made('an invite from the example'));
  checkLocation(session, 'createInvite', invite);
  keepMade(session, world, 'invite', 'createInvite', invite);
  expectListed(session, 'listInvites', await walkList(session, 'listInvites'), world.ids.invite);
  if (whenMade(session, world, 'invite', 'resendInvite', 'revokeInvite')) {
    await session.call('resendInvite', { path: { id: world.ids.invite } }, ok('resending the invite'));
    const revoked = await session.call('revokeInvite', { path: { id: world.ids.invite } }, ok('revoking the invite'));
    if (revoked) {
      await session.call(
        'resendInvite',
        { path: { id: world.ids.invite } },
        { status: [409], check: 'negative_data_rejection', what: 'resending a revoked invite', code: 'invite_closed' },
      );
    }
  }
  await removeMember(session, world);
}

/**
 * A second member exists only once a person accepts an invite, which no API operation does: the run removes the one
 * it was given (`--member`), and asks for it again; without one, it asks to remove a member that does not exist.
 */
async function removeMember(session: Session, world: World): Promise<void> {
  const member = world.given.member;
  if (member === undefined) {
    session.note(
      'removeMember',
      'happy path not run (a second member needs an accepted invite: pass --member); an unknown member asked instead',
    );
  } else if (await session.call('removeMember', { path: { id: member } }, ok('removing the member given with --member'))) {
    await session.call('removeMember', { path: { id: member } }, gone('the member just removed, removed again'));
    return;
  }
  await session.call(
    'removeMember',
    { path: {} },
    { status: [404], check: 'negative_data_rejection', what: 'removing a member that does not exist' },
  );
}

export async function transfers(session: Session, world: World): Promise<void> {
  const operations = ['transferForm', 'getTransfer', 'listTransfers', 'cancelTransfer', 'declineTransfer', 'acceptTransfer'];
  if (!adminOnly(session, world, ...operations) || !liveOnly(session, world, ...operations)) return;
  if (!world.keys.otherWorkspace) {
    for (const operationId of operations) session.note(operationId, 'not run: needs --key-other-workspace (the receiving workspace)');
    return;
  }
  const form = await createForm(session, world, 'transferForm', 'transfer');
  if (!whenMade(session, world, 'transferForm', ...operations)) return;
  const transfer = async () => {
    const answer = await session.call(
      'transferForm',
      { path: { id: form }, body: exampleBody(session.contract, 'transferForm', { ws: world.other?.workspaceId }) },
      made('asking for a transfer'),
    );
    checkLocation(session, 'transferForm', answer);
    return keepMade(session, world, 'transfer', 'transferForm', answer);
  };
  const first = await transfer();
  expectListed(session, 'listTransfers', await walkList(session, 'listTransfers'), first);
  if (!whenMade(session, world, 'transfer', 'getTransfer', 'cancelTransfer', 'declineTransfer', 'acceptTransfer')) return;
  await session.call('getTransfer', { path: { id: first } }, readBack('the transfer just asked for'));
  await session.call('cancelTransfer', { path: { id: first } }, ok('the sender cancelling'));
  // Without an answer from getMe the other key's scope is unknown: try, and let the answers speak.
  if (world.other && world.other.scope !== 'admin') {
    for (const operationId of ['declineTransfer', 'acceptTransfer'])
      session.note(operationId, 'not run: the --key-other-workspace key is not an admin key');
    return;
  }
  const declined = await transfer();
  if (whenMade(session, world, 'transfer', 'declineTransfer')) {
    await session.call('declineTransfer', { path: { id: declined }, key: world.keys.otherWorkspace }, ok('the receiver declining'));
  }
  const accepting = await transfer();
  if (!whenMade(session, world, 'transfer', 'acceptTransfer')) return;
  const accepted = await session.call(
    'acceptTransfer',
    { path: { id: accepting }, key: world.keys.otherWorkspace },
    ok('the receiver accepting'),
  );
  if (!accepted) return;
  await session.call(
    'getForm',
    { path: { id: form }, key: world.keys.otherWorkspace },
    readBack('the transferred form, by its new workspace'),
  );
  await session.call(
    'getForm',
    { path: { id: form } },
    { status: [404], check: 'workspace_isolation', what: 'the transferred form, by its old workspace' },
  );
}
