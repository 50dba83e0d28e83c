// A request tied to a component (Metrics views, dashboard panels): runs `load` whenever `deps` change, aborts
// the one before, and keeps the last data while the next is on its way so views do not flicker.
import { useEffect, useState } from 'preact/hooks';

export interface Reply<T> {
  data: T | null;
  error: unknown;
  busy: boolean;
}

export function useReply<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Reply<T> {
  const [state, setState] = useState<Reply<T>>({ data: null, error: '', busy: true });
  useEffect(() => {
    const ctl = new AbortController();
    setState((s) => ({ ...s, busy: true, error: '' }));
    load(ctl.signal).then((data) => {
      if (!ctl.signal.aborted) setState({ data, error: '', busy: false });
    }, (error: unknown) => {
      if (!ctl.signal.aborted) setState({ data: null, error, busy: false });
    });
    return () => ctl.abort();
  }, deps);
  return state;
}
