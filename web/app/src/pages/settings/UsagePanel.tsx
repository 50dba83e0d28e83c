// Settings → Usage (DESIGN §7; §4 `usage`, §6 Metering): today's accepted bytes per signal beside the plan's
// included volume and ceiling, overage bytes and cost, a meter of used vs included vs ceiling, and the last 30 UTC
// days stacked by signal from `usage/history`. Everyone on the account may read it (scope `read`).
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote } from '../../components/ErrorNote';
import { colorOf } from '../../components/TimeChart';
import { formatBytes } from '../../lib/time';
import { SIGNALS, lastDays, usageHistory, usageToday, type UsageHistory, type UsageToday } from './settings-api';
import { UsageChart } from './UsageChart';
import { bytesOr, usd } from './format';

const HISTORY_DAYS = 30;

export function UsagePanel({ tenant }: { tenant: string }) {
  const [today, setToday] = useState<UsageToday | null>(null);
  const [history, setHistory] = useState<UsageHistory | null>(null);
  const [error, setError] = useState<unknown>('');
  const [historyError, setHistoryError] = useState<unknown>('');
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    usageToday(tenant).then((u) => { if (live) { setToday(u); setError(''); } }, (e: unknown) => { if (live) setError(e); });
    usageHistory(tenant, HISTORY_DAYS).then((h) => { if (live) { setHistory({ ...h, days: lastDays(h.days, HISTORY_DAYS) }); setHistoryError(''); } }, (e: unknown) => { if (live) setHistoryError(e); });
    return () => {
      live = false;
    };
  }, [tenant, tick]);

  return (
    <section class="settings-section" aria-label="Usage section">
      <div class="toolbar">
        <span class="muted">{today ? `Today (${today.day}, UTC) · tier ${today.tier}` : 'Today (UTC)'}</span>
        <span class="spacer" />
        <button type="button" onClick={() => setTick(tick + 1)}>Refresh</button>
      </div>
      <ErrorNote error={error} />
      {today === null && error === '' && <div class="progress" role="progressbar" aria-label="Loading usage" />}
      {today && <Today usage={today} />}
      <h2>Last {HISTORY_DAYS} days</h2>
      <ErrorNote error={historyError} />
      {history && history.days.length > 0 && (
        <div class="card">
          <UsageChart days={history.days} />
          <p class="muted small-note">
            {HISTORY_DAYS}-day total {formatBytes(history.days.reduce((a, d) => a + d.bytes_accepted, 0))}
            {' · '}overage cost {usd(history.days.reduce((a, d) => a + d.overage_cost_usd, 0))}
            {' · '}included {bytesOr(history.included_bytes)}/day
          </p>
        </div>
      )}
      {history?.days.length === 0 && <p class="muted">No usage recorded in the last {HISTORY_DAYS} days.</p>}
    </section>
  );
}

function Today({ usage }: { usage: UsageToday }) {
  return (
    <div class="usage-today">
      <div class="stat-grid" role="list" aria-label="Today by signal">
        {SIGNALS.map((s, i) => (
          <div key={s} class="stat card" role="listitem" aria-label={`${s} ${formatBytes(usage.by_signal[s] ?? 0)}`}>
            <span class="stat-label"><span class="swatch" style={{ background: colorOf(i) }} />{s}</span>
            <span class="stat-value num">{formatBytes(usage.by_signal[s] ?? 0)}</span>
          </div>
        ))}
      </div>
      <div class="card">
        <Gauge used={usage.bytes_accepted} included={usage.included_bytes} ceiling={usage.ceiling_bytes} />
        <dl class="figures">
          <div><dt>Accepted today</dt><dd class="num" aria-label="Accepted today">{formatBytes(usage.bytes_accepted)}</dd></div>
          <div><dt>Included</dt><dd class="num">{bytesOr(usage.included_bytes)}</dd></div>
          <div><dt>Ceiling</dt><dd class="num">{bytesOr(usage.ceiling_bytes)}</dd></div>
          <div><dt>Overage</dt><dd class="num">{formatBytes(usage.overage_bytes)}</dd></div>
          <div><dt>Overage cost</dt><dd class="num">{usd(usage.overage_cost_usd)}</dd></div>
        </dl>
      </div>
    </div>
  );
}

/** Used vs included vs ceiling on one bar: the part within included, the overage past it, a mark at each limit. */
function Gauge({ used, included, ceiling }: { used: number; included: number | null; ceiling: number | null }) {
  if (included === null) {
    return <p class="muted">{formatBytes(used)} accepted today; this plan has no daily volume limit.</p>;
  }
  const top = Math.max(ceiling ?? included, used, 1);
  const pct = (n: number) => `${Math.min(100, (n / top) * 100)}%`;
  const within = Math.min(used, included);
  const over = Math.max(0, used - included);
  const share = included > 0 ? (used / included) * 100 : used > 0 ? Infinity : 0;
  const text = included === 0
    ? `${formatBytes(used)} accepted; this plan includes no daily volume`
    : `${formatBytes(used)} of ${formatBytes(included)} included (${share < 0.01 && used > 0 ? '<0.01' : share.toFixed(share < 10 ? 2 : 0)}%)`;
  const limit = ceiling !== null && ceiling > included ? ceiling : null;
  return (
    <div class="gauge-wrap">
      <div class="gauge" role="meter" aria-label="Today's volume" aria-valuemin={0} aria-valuemax={top} aria-valuenow={used} aria-valuetext={text}>
        <div class="gauge-fill" style={{ width: pct(within) }} />
        {over > 0 && <div class="gauge-over" style={{ left: pct(within), width: pct(over) }} />}
        {included > 0 && limit !== null && <div class="gauge-mark" style={{ left: pct(included) }} />}
      </div>
      <div class="gauge-scale" aria-hidden="true">
        <span style={{ left: 0 }}>0</span>
        {included > 0 && <span class={limit === null ? 'end' : 'mid'} style={limit === null ? { right: 0 } : { left: pct(included) }}>included {formatBytes(included)}</span>}
        {limit !== null && <span class="end" style={{ right: 0 }}>ceiling {formatBytes(limit)}</span>}
      </div>
      <div class="gauge-legend">{text}</div>
    </div>
  );
}
