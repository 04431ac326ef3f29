/**
 * The dashboard's start: read the page's settings, complete or resume the sign-in (auth.ts), learn who is signed in
 * (`GET /me`), then render. A person with no session is sent through the consent page, which sends them to sign in.
 */
import { render } from 'preact';
import { App } from './App.js';
import { createDashboardApi, unwrap } from './api.js';
import { DashboardSession, SignInFailed } from './auth.js';
import { readConfig } from './config.js';
import { navigate, route } from './router.js';
import { environment, me, setDashboard } from './state.js';

const root = document.getElementById('dashboard');

async function start(root: HTMLElement): Promise<void> {
  const config = readConfig(root);
  const session = new DashboardSession(config);
  const here = () => `${location.pathname}${location.search}`;
  const workspace = new URLSearchParams(location.search).get('workspace') ?? undefined;
  let restarting = false;
  /** Authorizes again (a 401, a switch of environment); after a few failed tries in a row it says so instead. */
  const authorizeAgain = (to: 'live' | 'test') =>
    void session.authorize(to, here()).catch((error: unknown) => showFailure(root, error instanceof Error ? error.message : String(error)));
  const api = createDashboardApi(config.api, session, () => {
    if (restarting) return;
    restarting = true;
    session.forget();
    authorizeAgain(session.environment);
  });
  setDashboard({ api, session, config });

  let returnTo: string | undefined;
  try {
    returnTo = workspace ? undefined : await session.resume();
  } catch (error) {
    if (error instanceof SignInFailed) return showFailure(root, error.message);
    throw error;
  }
  if (returnTo === undefined) {
    const stay = workspace ? '/dashboard/' : here();
    try {
      return await session.authorize('live', stay, workspace);
    } catch (error) {
      return showFailure(root, error instanceof Error ? error.message : String(error));
    }
  }
  environment.value = session.environment;
  me.value = unwrap(await api.GET('/me'));
  if (returnTo !== here()) navigate(returnTo, { replace: true });
  else route.value = { ...route.value };

  const onSwitchEnvironment = (to: 'live' | 'test') => authorizeAgain(to);
  const onSignOut = () => {
    void session.signOut().then(() => {
      // The people pages' sign-out ends the session (a form's POST, as on the account page).
      const form = document.createElement('form');
      form.method = 'post';
      form.action = config.signOut;
      document.body.append(form);
      form.submit();
    });
  };
  root.textContent = '';
  render(<App onSwitchEnvironment={onSwitchEnvironment} onSignOut={onSignOut} />, root);
}

function showFailure(root: HTMLElement, message: string): void {
  root.textContent = '';
  render(
    <main class="failure">
      <h1>Could not sign in to the dashboard</h1>
      <p role="alert">{message}</p>
      <p>
        <a href="/dashboard/">Try again</a>
      </p>
    </main>,
    root,
  );
}

if (root) {
  start(root).catch((error: unknown) => showFailure(root, error instanceof Error ? error.message : 'The dashboard could not start.'));
}
