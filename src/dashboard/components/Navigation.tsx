import { useState } from 'preact/hooks';
import { route } from '../router.js';
import { Link } from './Link.js';

export const screens = [
  { path: 'forms', label: 'Forms' },
  { path: 'leads', label: 'Leads' },
  { path: 'analytics', label: 'Analytics' },
  { path: 'integrations', label: 'Integrations' },
  { path: 'team', label: 'Team' },
  { path: 'keys', label: 'API keys' },
  { path: 'usage', label: 'Usage' },
  { path: 'audit', label: 'Audit log' },
] as const;

/** The screens, as a list of links; on a narrow screen behind a Menu button (a disclosure that closes on a choice). */
export function Navigation() {
  const [open, setOpen] = useState(false);
  const current = route.value.segments[0] ?? 'forms';
  return (
    <nav aria-label="Dashboard" class={open ? 'navigation open' : 'navigation'}>
      <button type="button" class="menu-button" aria-expanded={open} aria-controls="screens" onClick={() => setOpen(!open)}>
        Menu
      </button>
      <ul id="screens">
        {screens.map((screen) => (
          <li key={screen.path}>
            <Link to={screen.path} current={current === screen.path} onFollow={() => setOpen(false)}>
              {screen.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
