// Settings → Users (DESIGN §7: "Users are added by an admin with an initial password or an invite link that sets
// one"; roles admin, member, viewer). An admin lists, adds, changes roles and removes; removing a user ends their
// sessions at once. Others see who they are and a note, since the users API is admin-only.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Role, SessionInfo } from '../../lib/session';
import { isAdmin } from '../../lib/session';
import { ErrorNote } from '../../components/ErrorNote';
import { ROLES, addUser, changeRole, listUsers, reinvite, removeUser, type AccountUser, type Invite } from './settings-api';
import { Confirm, ShowOnce } from './Modal';
import { shortTime } from './format';

const ROLE_NOTE: Record<Role, string> = {
  admin: 'everything, including keys and users',
  member: 'search, and write dashboards, saved searches and detectors',
  viewer: 'read only',
};

export function UsersPanel({ session }: { session: SessionInfo }) {
  const admin = isAdmin(session);
  const [users, setUsers] = useState<AccountUser[] | null>(null);
  const [error, setError] = useState<unknown>('');
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<AccountUser | null>(null);
  const [invite, setInvite] = useState<{ email: string; invite: Invite } | null>(null);
  const [note, setNote] = useState('');
  const reload = () => listUsers().then((u) => { setUsers(u); setError(''); }, (e: unknown) => setError(e));
  useEffect(() => {
    if (admin) void reload();
  }, [admin]);

  if (!admin) {
    return (
      <p class="muted note">You are signed in as <strong>{session.user.email}</strong> ({session.user.role}). Users are managed by the account’s admins.</p>
    );
  }
  const setRole = async (u: AccountUser, role: Role) => {
    setError('');
    setNote('');
    try {
      await changeRole(u.id, role);
      setNote(`${u.email} is now ${role}`);
    } catch (e) {
      setError(e);
    }
    await reload();
  };
  const newLink = async (u: AccountUser) => {
    setError('');
    try {
      setInvite({ email: u.email, invite: (await reinvite(u.id)).invite });
      await reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="settings-section" aria-label="Users section">
      <div class="toolbar">
        <span class="muted">{users === null ? 'Loading…' : `${users.length} user${users.length === 1 ? '' : 's'} on ${session.account.name}`}</span>
        <span class="status-note" role="status">{note}</span>
        <span class="spacer" />
        <button type="button" class="primary" aria-expanded={adding} onClick={() => setAdding(!adding)}>Add user</button>
      </div>
      {adding && (
        <AddUserForm onCancel={() => setAdding(false)} onAdded={(u, inv) => {
          setAdding(false);
          setNote(`Added ${u.email} as ${u.role}`);
          if (inv) setInvite({ email: u.email, invite: inv });
          void reload();
        }} />
      )}
      <ErrorNote error={error} onClose={() => setError('')} />
      {users === null && error === '' && <div class="progress" role="progressbar" aria-label="Loading users" />}
      {users !== null && (
        <table aria-label="Users" class="settings-table">
          <thead><tr><th>Email</th><th>Role</th><th>Status</th><th>Added</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {users.map((u) => {
              const self = u.id === session.user.id;
              return (
                <tr key={u.id}>
                  <td>{u.email}{self && <span class="muted"> (you)</span>}</td>
                  <td>
                    <select aria-label={`Role of ${u.email}`} value={u.role} disabled={self} title={self ? 'You cannot change your own role' : ROLE_NOTE[u.role]}
                      onChange={(e) => void setRole(u, e.currentTarget.value as Role)}>
                      {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
                    </select>
                  </td>
                  <td>{u.has_password === false
                    ? <span class="pending" title={`The invite link works until ${shortTime(u.invite_expires_at)}`}>invited{expired(u) ? ' · link expired' : ''}</span>
                    : <span class="muted">active</span>}</td>
                  <td class="nowrap">{shortTime(u.created_at)}</td>
                  <td class="row-actions">
                    {!self && <button type="button" class="small" aria-label={`New invite link for ${u.email}`}
                      title={u.has_password === false ? 'A fresh link to pass on' : 'A link that sets a new password (ends their sessions once used)'}
                      onClick={() => void newLink(u)}>Invite link</button>}
                    {!self && <button type="button" class="small danger" aria-label={`Remove ${u.email}`} onClick={() => setRemoving(u)}>Remove</button>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {removing && (
        <Confirm title="Remove user" label="Remove" onClose={() => setRemoving(null)} onDone={() => { setNote(`Removed ${removing.email}`); void reload(); }}
          text={<>Remove <strong>{removing.email}</strong> from the account? Their sessions end at once.</>}
          action={() => removeUser(removing.id)} />
      )}
      {invite && (
        <ShowOnce title="Invite link" value={new URL(invite.invite.url, location.origin).href} valueLabel="Invite link" onClose={() => setInvite(null)}
          warning={`Send this link to ${invite.email}; it sets their password and works until ${shortTime(invite.invite.expires_at)}. It will not be shown again.`} />
      )}
    </section>
  );
}

const expired = (u: AccountUser): boolean =>
  typeof u.invite_expires_at === 'string' && Date.parse(u.invite_expires_at) <= Date.now();

function AddUserForm({ onAdded, onCancel }: { onAdded: (u: AccountUser, invite?: Invite) => void; onCancel: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [how, setHow] = useState<'password' | 'invite'>('password');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>('');
  const [busy, setBusy] = useState(false);
  const emailBox = useRef<HTMLInputElement>(null);
  useEffect(() => emailBox.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    try {
      const r = await addUser({ email: email.trim(), role, ...(how === 'password' ? { password } : {}) });
      onAdded(r.user, r.invite);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <form class="card settings-form" aria-label="New user" onSubmit={(e) => void submit(e)}>
      <div class="form-row">
        <label class="grow">Email<input ref={emailBox} type="email" required autoComplete="off" value={email} onInput={(e) => setEmail(e.currentTarget.value)} /></label>
        <label>Role
          <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
          </select>
        </label>
      </div>
      <p class="muted small-note">{role}: {ROLE_NOTE[role]}</p>
      <fieldset class="choice">
        <legend>How they sign in</legend>
        <label class="field-inline"><input type="radio" name="how" checked={how === 'password'} onChange={() => setHow('password')} /><span>Set a password now</span></label>
        <label class="field-inline"><input type="radio" name="how" checked={how === 'invite'} onChange={() => setHow('invite')} /><span>Make an invite link to send</span></label>
      </fieldset>
      {how === 'password' && (
        <label>Initial password<input type="password" required minLength={8} autoComplete="new-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
      )}
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>Create user</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}
