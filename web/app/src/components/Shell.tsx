// The frame around every page: navigation, tenant, display toggles, who is signed in, the plan banner.
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { PAGES, type PageProps } from '../pages';
import { hrefOf, navigate, type Route } from '../lib/route';
import { currentTenant, signOut, tenantChoice, type SessionInfo } from '../lib/session';
import { useStore } from '../lib/store';
import { utcDisplay } from '../lib/time';
import { theme } from '../lib/prefs';
import { getJson, errorText } from '../lib/api';
import { ErrorNote } from './ErrorNote';

interface AccountInfo {
  banner?: string;
}

export function Shell({ info, route }: { info: SessionInfo; route: Route }) {
  useStore(tenantChoice);
  const tenant = currentTenant(info);
  const utc = useStore(utcDisplay);
  const mode = useStore(theme);
  const [banner, setBanner] = useState<string>('');
  useEffect(() => {
    getJson<AccountInfo>('/api/v1/account').then((a) => setBanner(a.banner ?? ''), () => setBanner(''));
  }, [info.account.id]);

  const first = route.page.split('/')[0] ?? '';
  useEffect(() => {
    if (first === '' || !PAGES.some((p) => p.path === first)) navigate(hrefOf('explore'), { replace: true });
  }, [first]);
  const entry = PAGES.find((p) => p.path === first);

  return (
    <div class="shell">
      <nav class="sidebar" aria-label="Main">
        <a class="brand" href={hrefOf('explore')} aria-label="Sightline home">◎ Sightline</a>
        <ul>
          {PAGES.map((p) => (
            <li key={p.path}>
              <a href={hrefOf(p.path)} aria-current={p.path === first ? 'page' : undefined}>{p.label}</a>
            </li>
          ))}
        </ul>
        <div class="sidebar-foot">
          <label>
            <span>Tenant</span>
            <select aria-label="Tenant" value={tenant} onChange={(e) => tenantChoice.set(e.currentTarget.value)}>
              {info.tenants.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
            </select>
          </label>
          <button type="button" class="ghost" aria-pressed={utc} onClick={() => utcDisplay.set(!utc)} title="Show times in UTC">
            {utc ? 'UTC' : 'Local time'}
          </button>
          <button type="button" class="ghost" aria-label="Toggle theme" onClick={() => theme.set(mode === 'dark' ? 'light' : 'dark')}>
            {mode === 'dark' ? '☾ Dark' : '☀ Light'}
          </button>
          <div class="who" title={info.user.email}>{info.user.email} · {info.user.role}</div>
          <button type="button" class="ghost" onClick={() => void signOut()}>Sign out</button>
        </div>
      </nav>
      <main class="page">
        {banner !== '' && <div class="banner" role="status">{banner}</div>}
        {entry && <PageHost key={`${entry.path}:${tenant}`} load={entry.load} props={{ session: info, tenant, params: route.params, page: route.page }} />}
      </main>
    </div>
  );
}

/** Loads a page's chunk on first visit; shows progress meanwhile and the error if the chunk fails. */
function PageHost({ load, props }: { load: () => Promise<{ default: ComponentType<PageProps> }>; props: PageProps }) {
  const [Page, setPage] = useState<ComponentType<PageProps> | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    load().then((m) => { if (live) setPage(() => m.default); }, (e: unknown) => { if (live) setError(errorText(e)); });
    return () => {
      live = false;
    };
  }, [load]);
  if (error !== '') return <ErrorNote error={error} />;
  if (!Page) return <div class="progress" role="progressbar" aria-label="Loading page" />;
  return <Page {...props} />;
}
