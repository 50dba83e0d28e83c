// Settings → Plan (DESIGN §7: tier, limits, AI credits left; §6 ceilings and query rate): what the account's plan
// allows, from `GET /api/v1/account` (null or absent numbers mean unlimited), and the signed-in user's own
// "Change password" form (`POST /api/v1/session/password`; a password change ends the user's other sessions).
import { useEffect, useState } from 'preact/hooks';
import { session as sessionStore, type SessionInfo } from '../../lib/session';
import { ErrorNote } from '../../components/ErrorNote';
import { changePassword, getAccount, type AccountReply } from './settings-api';
import { bytesOr, countOr, shortTime } from './format';

const CEILINGS: readonly [keyof NonNullable<AccountReply['plan']['ceilings']>, string][] = [
  ['users', 'Users'], ['api_keys', 'API keys'], ['live_tail', 'Live tail sessions'], ['dashboards', 'Dashboards'],
  ['saved_searches', 'Saved searches'], ['projects', 'Projects'],
];

export function PlanPanel({ session }: { session: SessionInfo }) {
  const [reply, setReply] = useState<AccountReply | null>(null);
  const [error, setError] = useState<unknown>('');
  useEffect(() => {
    getAccount().then(setReply, (e: unknown) => setError(e));
  }, [session.account.id]);
  return (
    <section class="settings-section" aria-label="Plan section">
      <ErrorNote error={error} />
      {reply === null && error === '' && <div class="progress" role="progressbar" aria-label="Loading plan" />}
      {reply && <PlanView reply={reply} />}
      <ChangePassword email={session.user.email} />
    </section>
  );
}

function PlanView({ reply }: { reply: AccountReply }) {
  const { account, plan, ai } = reply;
  const trialEnds = account.trial_ends_at;
  const daysLeft = trialEnds === null ? null : Math.ceil((Date.parse(trialEnds) - Date.now()) / 86_400_000);
  const mult = plan.overage_ceiling_multiplier;
  const ceilingText = mult === null || mult === undefined ? 'unlimited'
    : mult <= 1 ? 'hard stop at included' : `${mult}× included (${bytesOr(plan.daily_included_bytes === null || plan.daily_included_bytes === undefined ? null : plan.daily_included_bytes * mult)})`;
  const features = Object.entries(account.features ?? {});
  return (
    <div class="plan-grid">
      <div class="card">
        <h3>Account</h3>
        <dl class="kv">
          <dt>Account</dt><dd>{account.name}</dd>
          <dt>Tier</dt><dd><span class={`tier tier-${account.tier}`} aria-label="Tier">{account.tier}</span></dd>
          <dt>Signed up</dt><dd>{shortTime(account.signup_at)}</dd>
          {trialEnds !== null && (
            <><dt>Trial ends</dt><dd>{shortTime(trialEnds)}{daysLeft !== null && <span class="muted"> ({daysLeft > 0 ? `${daysLeft} day${daysLeft === 1 ? '' : 's'} left` : 'ended'})</span>}</dd></>
          )}
          {features.length > 0 && (
            <><dt>Features</dt><dd>{features.map(([k, on]) => <span key={k} class={`tag ${on ? 'on' : 'off'}`} title={on ? 'enabled' : 'not on this plan'}>{k.replace(/_/g, '-')}{on ? '' : ' ✕'}</span>)}</dd></>
          )}
        </dl>
      </div>
      <div class="card">
        <h3>AI credits</h3>
        <dl class="kv">
          <dt>Left today</dt><dd class="num-strong" aria-label="AI credits left">{countOr(ai?.remaining, '', plan.ai_daily_credits === 0 ? '0' : 'unlimited')}</dd>
          <dt>Used today</dt><dd>{countOr(ai?.used_today, '', '0')}</dd>
          <dt>Daily credits</dt><dd>{plan.ai_daily_credits === 0 ? 'not on this plan' : countOr(plan.ai_daily_credits)}</dd>
        </dl>
      </div>
      <div class="card">
        <h3>Limits</h3>
        <table aria-label="Plan limits" class="kv-table">
          <tbody>
            <tr><th scope="row">Ingest rate</th><td class="num">{countOr(plan.ingest_rate, 'entries/s')}</td></tr>
            <tr><th scope="row">Included per day</th><td class="num">{bytesOr(plan.daily_included_bytes)}</td></tr>
            <tr><th scope="row">Daily ceiling</th><td class="num">{ceilingText}</td></tr>
            <tr><th scope="row">Query rate</th><td class="num">{countOr(plan.query_rate_per_min, 'requests/min')}</td></tr>
            <tr><th scope="row">Retention</th><td class="num">{countOr(plan.retention_days, 'days')}</td></tr>
          </tbody>
        </table>
      </div>
      <div class="card">
        <h3>Ceilings</h3>
        <table aria-label="Plan ceilings" class="kv-table">
          <tbody>
            {CEILINGS.map(([k, label]) => <tr key={k}><th scope="row">{label}</th><td class="num">{countOr(plan.ceilings?.[k])}</td></tr>)}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function ChangePassword({ email }: { email: string }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<unknown>('');
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    setDone('');
    if (next !== repeat) {
      setError('The new passwords do not match.');
      return;
    }
    setBusy(true);
    try {
      // The old session ended with the change; the reply's fresh one (and its cookie) carries on.
      sessionStore.set(await changePassword(current, next));
      setCurrent('');
      setNext('');
      setRepeat('');
      setDone('Password changed. Your other sessions have been signed out.');
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };
  return (
    <form class="card settings-form password-form" aria-label="Change password" onSubmit={(e) => void submit(e)}>
      <h3>Change password</h3>
      {/* For password managers: the account the new password belongs to. */}
      <input type="email" autoComplete="username" value={email} readOnly hidden />
      <label>Current password<input type="password" required autoComplete="current-password" value={current} onInput={(e) => setCurrent(e.currentTarget.value)} /></label>
      <label>New password<input type="password" required minLength={8} autoComplete="new-password" value={next} onInput={(e) => setNext(e.currentTarget.value)} /></label>
      <label>Repeat new password<input type="password" required minLength={8} autoComplete="new-password" value={repeat} onInput={(e) => setRepeat(e.currentTarget.value)} /></label>
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>Change password</button>
        <span class="muted" role="status">{done}</span>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}
