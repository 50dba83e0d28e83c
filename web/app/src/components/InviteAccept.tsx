// An invited user sets a password from the link an admin shared (DESIGN §7: "an invite link that sets one").
import { useState } from 'preact/hooks';
import { sendJson } from '../lib/api';
import { session, type SessionInfo } from '../lib/session';
import { hrefOf, navigate } from '../lib/route';
import { ErrorNote } from './ErrorNote';

export function InviteAccept({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      session.set(await sendJson<SessionInfo>('POST', '/api/v1/session/invite', { token, password }, { quiet401: true }));
      navigate(hrefOf('explore'), { replace: true });
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div class="signin">
      <form class="card signin-card" onSubmit={(e) => void submit(e)} aria-label="Accept invitation">
        <h1>Set your password</h1>
        <label>Password<input type="password" autoComplete="new-password" minLength={8} required value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
        <ErrorNote error={error} />
        <button type="submit" class="primary">Set password and sign in</button>
      </form>
    </div>
  );
}
