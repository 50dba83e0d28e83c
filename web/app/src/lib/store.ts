// Small shared state with subscribers: the session, the current tenant and the display preferences (theme,
// UTC). Preferences live in localStorage so they survive reloads; the session is the service's to say.
import { useEffect, useState } from 'preact/hooks';

export class Store<T> {
  private readonly listeners = new Set<(v: T) => void>();
  constructor(private value: T) {}

  get(): T {
    return this.value;
  }

  set(value: T): void {
    this.value = value;
    for (const fn of this.listeners) fn(value);
  }

  subscribe(fn: (v: T) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

export function useStore<T>(store: Store<T>): T {
  const [value, setValue] = useState(store.get());
  useEffect(() => {
    setValue(store.get());
    const off = store.subscribe(setValue);
    return () => {
      off();
    };
  }, [store]);
  return value;
}

/** A Store persisted in localStorage under `key`. */
export function persisted<T>(key: string, fallback: T): Store<T> {
  let initial = fallback;
  try {
    const text = localStorage.getItem(key);
    if (text !== null) initial = JSON.parse(text) as T;
  } catch {
    // private mode or a stale value: keep the fallback
  }
  const store = new Store<T>(initial);
  store.subscribe((v) => {
    try {
      localStorage.setItem(key, JSON.stringify(v));
    } catch {
      // storage full or blocked: the preference lasts for this page only
    }
  });
  return store;
}
