// Settings (DESIGN §7 Pages: Settings → API Keys, Users, Usage, Plan). Each sub-page is its own URL
// (`/app/settings/keys`, `…/users`, `…/usage`, `…/plan`) so a reload or a shared link lands on it; a sub-navigation
// moves between them. Write controls follow the role: only an admin manages keys and users, a viewer sees none.
import { useEffect } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import type { PageProps } from '../../pages';
import { hrefOf, navigate } from '../../lib/route';
import { isAdmin } from '../../lib/session';
import { useStore } from '../../lib/store';
import { utcDisplay } from '../../lib/time';
import { KeysPanel } from './KeysPanel';
import { UsersPanel } from './UsersPanel';
import { UsagePanel } from './UsagePanel';
import { PlanPanel } from './PlanPanel';
import './settings.css';

const SECTIONS = [
  { path: 'keys', label: 'API keys', title: 'API keys' },
  { path: 'users', label: 'Users', title: 'Users' },
  { path: 'usage', label: 'Usage', title: 'Usage' },
  { path: 'plan', label: 'Plan', title: 'Plan' },
] as const;
type Section = (typeof SECTIONS)[number]['path'];

export default function SettingsPage({ session, tenant, page }: PageProps) {
  useStore(utcDisplay);
  const sub = page.split('/')[1] ?? '';
  const section = SECTIONS.find((s) => s.path === sub);
  // Admins land on their keys; everyone else on usage, where there is something for them to read.
  const fallback: Section = isAdmin(session) ? 'keys' : 'usage';
  useEffect(() => {
    if (!section) navigate(hrefOf(`settings/${fallback}`), { replace: true });
  }, [section, fallback]);
  if (!section) return null;

  let body: ComponentChildren;
  if (section.path === 'keys') body = <KeysPanel session={session} tenant={tenant} />;
  else if (section.path === 'users') body = <UsersPanel session={session} />;
  else if (section.path === 'usage') body = <UsagePanel tenant={tenant} />;
  else body = <PlanPanel session={session} />;

  return (
    <div class="page-body settings">
      <header class="settings-head">
        <h1>Settings <span class="muted">/ {section.title}</span></h1>
        <nav class="subnav" aria-label="Settings sections">
          {SECTIONS.map((s) => (
            <a key={s.path} href={hrefOf(`settings/${s.path}`)} aria-current={s.path === section.path ? 'page' : undefined}>{s.label}</a>
          ))}
        </nav>
      </header>
      {body}
    </div>
  );
}
