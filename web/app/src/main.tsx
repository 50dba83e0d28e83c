// The app's root: checks the session, then shows sign-in or the shell with the page the URL names.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './theme.css';
import { loadSession, session } from './lib/session';
import { useStore } from './lib/store';
import { linkClick, useRoute } from './lib/route';
import { SignIn } from './components/SignIn';
import { Shell } from './components/Shell';
import { InviteAccept } from './components/InviteAccept';
import { theme } from './lib/prefs';
import { PAGES } from './pages';

function App() {
  const info = useStore(session);
  const route = useRoute();
  useStore(theme); // re-render on a theme change (lib/prefs.ts has already put it on the root)
  const [checked, setChecked] = useState(false);
  useEffect(() => {
    void loadSession().then(() => setChecked(true));
  }, []);
  if (route.page === 'invite') return <InviteAccept token={route.params.get('token') ?? ''} />;
  if (!checked || info === undefined) return <div class="boot" role="progressbar" aria-label="Loading" />;
  // Signed out or aged out: sign-in in place, keeping the URL (DESIGN §7), then the same view.
  if (info === null) return <SignIn />;
  return <Shell info={info} route={route} />;
}

// The page the URL names starts loading now, beside the session check, rather than after it (DESIGN §7 Speed:
// interactive in under 1 s); the module map keeps it for when the shell asks.
const first = location.pathname.replace(/^\/app\/?/, '').split('/')[0] ?? '';
void (PAGES.find((p) => p.path === first) ?? PAGES[0])?.load().catch(() => undefined);

document.addEventListener('click', linkClick);
const root = document.getElementById('root');
if (root) render(<App />, root);
