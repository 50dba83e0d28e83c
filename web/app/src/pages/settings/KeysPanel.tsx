// Settings → API Keys (DESIGN §7, §4 `keys`): the tenant's keys in a table named `API keys`; an admin creates one
// (name, scopes, optional expiry) with the button `Create API key`, sees its secret once, rotates (the old secret
// stops at once, the new one is shown once) and revokes. Plan ceilings come back as the API's own 403 detail.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SessionInfo } from '../../lib/session';
import { isAdmin } from '../../lib/session';
import { ErrorNote } from '../../components/ErrorNote';
import { SCOPES, createKey, listKeys, revokeKey, rotateKey, type ApiKey, type Scope } from './settings-api';
import { Confirm, ShowOnce } from './Modal';
import { shortTime } from './format';

const SECRET_WARNING = 'This secret is shown once and will not be shown again: copy it now and keep it somewhere safe.';

type Pending = { kind: 'rotate' | 'revoke'; key: ApiKey } | { kind: 'secret'; title: string; key: ApiKey } | null;

export function KeysPanel({ session, tenant }: { session: SessionInfo; tenant: string }) {
  const admin = isAdmin(session);
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<unknown>('');
  const [creating, setCreating] = useState(false);
  const [pending, setPending] = useState<Pending>(null);
  const rotated = useRef<ApiKey | null>(null);
  const reload = () => listKeys(tenant).then((k) => { setKeys(k); setError(''); }, (e: unknown) => setError(e));
  useEffect(() => {
    if (admin) void reload();
  }, [tenant, admin]);

  if (!admin) {
    return <p class="muted note">API keys are managed by the account’s admins. Ask one of them for a key with the scopes you need.</p>;
  }
  const nameOf = (k: ApiKey) => (k.name === '' ? k.id : k.name);
  return (
    <section class="settings-section" aria-label="API keys section">
      <div class="toolbar">
        <span class="muted">{keys === null ? 'Loading…' : `${keys.length} key${keys.length === 1 ? '' : 's'} on this tenant`}</span>
        <span class="spacer" />
        <button type="button" class="primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>Create API key</button>
      </div>
      {creating && (
        <CreateKeyForm tenant={tenant} onCancel={() => setCreating(false)} onCreated={(k) => {
          setCreating(false);
          setPending({ kind: 'secret', title: 'API key created', key: k });
          void reload();
        }} />
      )}
      <ErrorNote error={error} />
      {keys === null && error === '' && <div class="progress" role="progressbar" aria-label="Loading keys" />}
      {keys !== null && (
        <table aria-label="API keys" class="settings-table">
          <thead>
            <tr><th>Name</th><th>Scopes</th><th>Created</th><th>Expires</th><th>ID</th><th><span class="visually-hidden">Actions</span></th></tr>
          </thead>
          <tbody>
            {keys.length === 0 && <tr><td colSpan={6} class="muted">No keys on this tenant yet.</td></tr>}
            {keys.map((k) => (
              <tr key={k.id}>
                <td>{k.name === '' ? <span class="muted">(unnamed)</span> : k.name}</td>
                <td>{k.scopes.map((s) => <span key={s} class="tag scope">{s}</span>)}</td>
                <td class="nowrap">{shortTime(k.created_at)}</td>
                <td class="nowrap">{k.expires_at === null ? <span class="muted">never</span> : <ExpiryCell at={k.expires_at} />}</td>
                <td class="mono">{k.id}</td>
                <td class="row-actions">
                  <button type="button" class="small" aria-label={`Rotate ${nameOf(k)}`} onClick={() => setPending({ kind: 'rotate', key: k })}>Rotate</button>
                  <button type="button" class="small danger" aria-label={`Revoke ${nameOf(k)}`} onClick={() => setPending({ kind: 'revoke', key: k })}>Revoke</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pending?.kind === 'rotate' && (
        <Confirm title="Rotate API key" label="Rotate" onClose={() => setPending(null)}
          text={<>The current secret of <strong>{nameOf(pending.key)}</strong> stops working at once; a new secret is shown once. Clients using the old one must be updated.</>}
          action={async () => { rotated.current = await rotateKey(tenant, pending.key.id); }}
          onDone={() => {
            // Confirm closes itself after the action; the new secret's dialog takes its place.
            if (rotated.current) setPending({ kind: 'secret', title: 'API key rotated', key: rotated.current });
            void reload();
          }} />
      )}
      {pending?.kind === 'revoke' && (
        <Confirm title="Revoke API key" label="Revoke" onClose={() => setPending(null)} onDone={() => void reload()}
          text={<>Revoke <strong>{nameOf(pending.key)}</strong>? Every request with it is refused from now on. This cannot be undone.</>}
          action={() => revokeKey(tenant, pending.key.id)} />
      )}
      {pending?.kind === 'secret' && (
        <ShowOnce title={pending.title} value={pending.key.key ?? ''} valueLabel="Secret" warning={SECRET_WARNING} onClose={() => setPending(null)}>
          <p>Key <strong>{nameOf(pending.key)}</strong> · scopes {pending.key.scopes.join(', ')}
            {pending.key.expires_at !== null && <> · expires {shortTime(pending.key.expires_at)}</>}</p>
        </ShowOnce>
      )}
    </section>
  );
}

function ExpiryCell({ at }: { at: string }) {
  const past = Date.parse(at) <= Date.now();
  return <span class={past ? 'expired' : ''}>{shortTime(at)}{past && ' (expired)'}</span>;
}

/** The date input's earliest choice: tomorrow (UTC), since a key that expires today is of little use. */
const tomorrow = (): string => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

function CreateKeyForm({ tenant, onCreated, onCancel }: { tenant: string; onCreated: (k: ApiKey) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [expiry, setExpiry] = useState('');
  const [error, setError] = useState<unknown>('');
  const [busy, setBusy] = useState(false);
  const toggle = (s: Scope, on: boolean) => setScopes(on ? SCOPES.filter((x) => x === s || scopes.includes(x)) : scopes.filter((x) => x !== s));
  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    if (scopes.length === 0) {
      setError('Choose at least one scope.');
      return;
    }
    setBusy(true);
    try {
      // The key stops working at the start of the chosen day, UTC.
      onCreated(await createKey(tenant, { name: name.trim(), scopes, ...(expiry === '' ? {} : { expires_at: `${expiry}T00:00:00Z` }) }));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <form class="card settings-form" aria-label="New API key" onSubmit={(e) => void submit(e)}>
      <label>Name<input value={name} maxLength={200} placeholder="e.g. production shipper" onInput={(e) => setName(e.currentTarget.value)} autoFocus /></label>
      <fieldset class="scopes">
        <legend>Scopes</legend>
        {SCOPES.map((s) => (
          <label key={s} class="field-inline">
            <input type="checkbox" checked={scopes.includes(s)} onChange={(e) => toggle(s, e.currentTarget.checked)} />
            <span>{s}</span>
          </label>
        ))}
      </fieldset>
      <label>Expires (optional, 00:00 UTC of)<input type="date" min={tomorrow()} value={expiry} onInput={(e) => setExpiry(e.currentTarget.value)} /></label>
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>Create</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}
