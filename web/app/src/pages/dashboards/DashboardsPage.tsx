// Dashboards (DESIGN §7; issue 8 item 6): `/app/dashboards` lists the tenant's dashboards, `?id=<id>` opens one.
// The shared time range rides in the URL (`start`/`end`) on both, so it carries from the list into a dashboard
// and a reload shows the same view. Writes (create, import, edit, delete) are for members and admins only.
import type { PageProps } from '../../pages';
import { canWrite } from '../../lib/session';
import { useStore } from '../../lib/store';
import { rangeFromParams, utcDisplay } from '../../lib/time';
import { DashboardList } from './DashboardList';
import { DashboardView } from './DashboardView';
import './dashboards.css';

export default function DashboardsPage({ session, tenant, params }: PageProps) {
  useStore(utcDisplay);
  const id = params.get('id') ?? '';
  const range = rangeFromParams(params);
  const writable = canWrite(session);
  if (id === '') return <DashboardList tenant={tenant} range={range} writable={writable} />;
  return <DashboardView key={id} tenant={tenant} id={id} range={range} writable={writable} />;
}
