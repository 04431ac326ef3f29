import type { ComponentType } from 'preact';
import { EnvironmentSwitch } from './components/EnvironmentSwitch.js';
import { Navigation } from './components/Navigation.js';
import { route } from './router.js';
import { AnalyticsScreen } from './screens/Analytics.js';
import { AuditScreen } from './screens/Audit.js';
import { FormsScreen } from './screens/Forms.js';
import { IntegrationsScreen } from './screens/Integrations.js';
import { KeysScreen } from './screens/Keys.js';
import { LeadsScreen } from './screens/Leads.js';
import { TeamScreen } from './screens/Team.js';
import { UsageScreen } from './screens/Usage.js';
import { dashboard, environment, me } from './state.js';

/** Each screen by its first path segment; a screen reads the rest of the route itself (`forms/frm_…`). */
const screenOf: Record<string, ComponentType> = {
  forms: FormsScreen,
  leads: LeadsScreen,
  analytics: AnalyticsScreen,
  integrations: IntegrationsScreen,
  team: TeamScreen,
  keys: KeysScreen,
  usage: UsageScreen,
  audit: AuditScreen,
};

export function App(props: { onSwitchEnvironment: (to: 'live' | 'test') => void; onSignOut: () => void }) {
  const who = me.value;
  const Screen = screenOf[route.value.segments[0] ?? 'forms'];
  const { config } = dashboard();
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <p class="workspace">
          <span class="brand">Form-Funnel</span>
          <span>{who?.workspace.name}</span>
        </p>
        <div class="session">
          <EnvironmentSwitch onSwitch={props.onSwitchEnvironment} />
          <a href={config.account}>{who?.member?.email ?? 'Account'}</a>
          <button type="button" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      {environment.value === 'test' && (
        <p class="test-banner" role="status">
          Test mode: you are looking at test data. Live data is not shown or changed.
        </p>
      )}
      <div class="layout">
        <Navigation />
        <main id="main" tabIndex={-1}>
          {Screen ? (
            <Screen />
          ) : (
            <section>
              <h1>Not found</h1>
              <p>The dashboard has no such screen.</p>
            </section>
          )}
        </main>
      </div>
    </>
  );
}
