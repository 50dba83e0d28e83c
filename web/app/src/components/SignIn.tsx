// Sign-in (DESIGN §7: fields `Email`, `Password`, button `Sign in`). Shown in place of any page when there is
// no session, so the URL — and with it the view — is kept for after.
import { useState } from 'preact/hooks';
import { signIn } from '../lib/session';
import { ErrorNote } from './ErrorNote';

export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await signIn(email, password);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <div class="signin">
      <form class="card signin-card" onSubmit={(e) => void submit(e)} aria-label="Sign in to Sightline">
        <h1>◎ Sightline</h1>
        <label>Email<input type="email" name="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} autoFocus /></label>
        <label>Password<input type="password" name="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
        <ErrorNote error={error} />
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </div>
  );
}
