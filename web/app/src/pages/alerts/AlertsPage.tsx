// Detectors and Alerts (DESIGN §7 Pages, §8): the tenant's alerts filtered by state (firing, pending, nodata,
// error, resolved) with labels, summary, value and start, a Detectors tab (`/app/alerts/detectors`) with the
// tenant's detectors and the catalog of kinds, and a Playbooks tab (`/app/alerts/playbooks[/<id>]`, DESIGN §9) with
// the imported runbooks; an alert whose detector a playbook created links to it. The tab and the state filter live in the URL. While the service
// has no detectors API (404), the page says it is not set up yet rather than showing an error.
import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../../pages';
import { ErrorNote } from '../../components/ErrorNote';
import { Drawer } from '../../components/Drawer';
import { JsonView } from '../../components/JsonView';
import { hrefOf, navigate, setParams } from '../../lib/route';
import { useStore } from '../../lib/store';
import { formatTime, utcDisplay } from '../../lib/time';
import { ALERT_STATES, listAlerts, type Alert, type AlertState } from './alerts-api';
import { DetectorsTab } from './DetectorsTab';
import { PlaybooksTab, playbookHref } from './PlaybooksTab';
import { NotSetUp } from './NotSetUp';
import './alerts.css';

/** How often the alert list re-reads while open (evaluation runs every minute by default, DESIGN §8). */
const REFRESH_MS = 30_000;

type Tab = 'alerts' | 'detectors' | 'playbooks';

export default function AlertsPage({ tenant, params, page }: PageProps) {
  useStore(utcDisplay);
  const [, sub, id] = page.split('/');
  const tab: Tab = sub === 'detectors' || sub === 'playbooks' ? sub : 'alerts';
  const go = (t: Tab) => navigate(t === 'alerts' ? hrefOf('alerts', params) : hrefOf(`alerts/${t}`));
  return (
    <div class="page-body alerts-page">
      <header class="alerts-head">
        <h1>Alerts</h1>
        <div class="tabs" role="tablist" aria-label="Alerts views">
          <button type="button" role="tab" aria-selected={tab === 'alerts'} onClick={() => go('alerts')}>Alerts</button>
          <button type="button" role="tab" aria-selected={tab === 'detectors'} onClick={() => go('detectors')}>Detectors</button>
          <button type="button" role="tab" aria-selected={tab === 'playbooks'} onClick={() => go('playbooks')}>Playbooks</button>
        </div>
      </header>
      <div role="tabpanel" aria-label={TAB_NAMES[tab]} class="alerts-panel">
        {tab === 'alerts' && <AlertList tenant={tenant} params={params} />}
        {tab === 'detectors' && <DetectorsTab tenant={tenant} highlight={params.get('detector') ?? undefined} />}
        {tab === 'playbooks' && <PlaybooksTab tenant={tenant} id={id === undefined || id === '' ? undefined : decodeURIComponent(id)} />}
      </div>
    </div>
  );
}

const TAB_NAMES: Record<Tab, string> = { alerts: 'Alerts', detectors: 'Detectors', playbooks: 'Playbooks' };

function stateOf(params: URLSearchParams): AlertState | '' {
  const s = params.get('state') ?? '';
  return ALERT_STATES.find((x) => x === s) ?? '';
}

function AlertList({ tenant, params }: { tenant: string; params: URLSearchParams }) {
  const state = stateOf(params);
  const [alerts, setAlerts] = useState<Alert[] | null | undefined>(undefined);
  const [error, setError] = useState<unknown>('');
  const [tick, setTick] = useState(0);
  const [open, setOpen] = useState<Alert | null>(null);
  useEffect(() => {
    const ctl = new AbortController();
    listAlerts(tenant, state, ctl.signal).then((a) => { setAlerts(a); setError(''); }, (e: unknown) => { if (!ctl.signal.aborted) setError(e); });
    const timer = setInterval(() => setTick((n) => n + 1), REFRESH_MS);
    return () => {
      ctl.abort();
      clearInterval(timer);
    };
  }, [tenant, state, tick]);

  if (alerts === null) return <NotSetUp />;
  return (
    <>
      <div class="toolbar">
        <div class="state-filter" role="group" aria-label="State">
          <button type="button" class="small" aria-pressed={state === ''} onClick={() => setParams({ state: undefined })}>All</button>
          {ALERT_STATES.map((s) => (
            <button key={s} type="button" class={`small state-btn st-${s}`} aria-pressed={state === s} onClick={() => setParams({ state: s })}>{s}</button>
          ))}
        </div>
        <span class="spacer" />
        {alerts && <span class="muted">{alerts.length} alert{alerts.length === 1 ? '' : 's'}</span>}
        <button type="button" onClick={() => setTick(tick + 1)}>Refresh</button>
      </div>
      <ErrorNote error={error} />
      {alerts === undefined && error === '' && <div class="progress" role="progressbar" aria-label="Loading alerts" />}
      {alerts && alerts.length === 0 && (
        <div class="empty-state" role="status"><span class="muted">{state === '' ? 'No alerts.' : `No ${state} alerts.`}</span></div>
      )}
      {alerts && alerts.length > 0 && (
        <table class="alerts-table" aria-label="Alert list">
          <thead><tr><th>State</th><th>Alert</th><th>Labels</th><th>Summary</th><th class="num">Value</th><th>Started</th></tr></thead>
          <tbody>
            {alerts.map((a, i) => (
              <tr key={a.id ?? `${i}`} class="clickable" onClick={() => setOpen(a)}>
                <td><span class={`state-badge st-${a.state}`}>{a.state}</span></td>
                <td>
                  <button type="button" class="link-like" onClick={(e) => { e.stopPropagation(); setOpen(a); }}>{nameOf(a)}</button>
                  {a.labels.playbook && <> <PlaybookLink alert={a} /></>}
                </td>
                <td class="labels">{labelTags(a.labels)}</td>
                <td>{a.annotations.summary ?? <span class="muted">—</span>}</td>
                <td class="num mono">{valueText(a.value)}</td>
                <td class="nowrap">{formatTime(Date.parse(a.starts_at))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open && <AlertDrawer alert={open} onClose={() => setOpen(null)} />}
    </>
  );
}

const nameOf = (a: Alert): string => a.labels.alertname ?? a.labels.detector ?? a.id ?? 'alert';

const valueText = (v: Alert['value']): string => (v === null || v === undefined ? '—' : typeof v === 'number' ? String(Number(v.toPrecision(6))) : v);

function labelTags(labels: Record<string, string>) {
  return Object.entries(labels).filter(([k]) => k !== 'alertname').map(([k, v]) => <span key={k} class="tag mono">{k}={v}</span>);
}

/** An alert of a detector a playbook created (label `playbook`, DESIGN §9) links back to that playbook. */
function PlaybookLink({ alert }: { alert: Alert }) {
  const id = alert.labels.playbook ?? '';
  const title = alert.annotations.playbook ?? id;
  const href = playbookHref(id);
  // The row opens the alert's drawer on click: this link goes to the playbook instead, in place.
  const go = (e: MouseEvent) => {
    e.stopPropagation();
    e.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={go} aria-label={`Playbook: ${title}`}>Playbook: {title}</a>;
}

function AlertDrawer({ alert, onClose }: { alert: Alert; onClose: () => void }) {
  const runbook = alert.annotations.runbook_url;
  return (
    <Drawer title={nameOf(alert)} onClose={onClose}>
      <dl class="alert-kv">
        <dt>State</dt><dd><span class={`state-badge st-${alert.state}`}>{alert.state}</span></dd>
        <dt>Value</dt><dd class="mono">{valueText(alert.value)}</dd>
        <dt>Started</dt><dd>{formatTime(Date.parse(alert.starts_at))}</dd>
        {alert.ends_at && <><dt>Ended</dt><dd>{formatTime(Date.parse(alert.ends_at))}</dd></>}
        <dt>Summary</dt><dd>{alert.annotations.summary ?? '—'}</dd>
        {alert.annotations.description && <><dt>Description</dt><dd class="pre">{alert.annotations.description}</dd></>}
        {runbook && /^https?:\/\//.test(runbook) && <><dt>Runbook</dt><dd><a href={runbook} target="_blank" rel="noreferrer">{runbook}</a></dd></>}
        {alert.labels.playbook && <><dt>Playbook</dt><dd><PlaybookLink alert={alert} /></dd></>}
        <dt>Labels</dt><dd class="labels">{labelTags(alert.labels)}</dd>
      </dl>
      <h3>JSON</h3>
      <JsonView value={alert} />
    </Drawer>
  );
}
