// One chunk per page (DESIGN §7 Speed: no page pulls more script than it needs before it is interactive).
import type { ComponentType } from 'preact';
import type { SessionInfo } from './lib/session';

export interface PageProps {
  session: SessionInfo;
  tenant: string;
  params: URLSearchParams;
  /** The path under /app/ (`settings/keys`, …), for pages with sub-pages. */
  page: string;
}

export type PageModule = { default: ComponentType<PageProps> };

export interface PageEntry {
  /** The first path segment under /app/. */
  path: string;
  label: string;
  load: () => Promise<PageModule>;
}

export const PAGES: readonly PageEntry[] = [
  { path: 'explore', label: 'Explore', load: () => import('./pages/explore/ExplorePage') },
  { path: 'traces', label: 'Traces', load: () => import('./pages/traces/TracesPage') },
  { path: 'metrics', label: 'Metrics', load: () => import('./pages/metrics/MetricsPage') },
  { path: 'dashboards', label: 'Dashboards', load: () => import('./pages/dashboards/DashboardsPage') },
  { path: 'replays', label: 'Replays', load: () => import('./pages/replays/ReplaysPage') },
  { path: 'alerts', label: 'Alerts', load: () => import('./pages/alerts/AlertsPage') },
  { path: 'settings', label: 'Settings', load: () => import('./pages/settings/SettingsPage') },
];
