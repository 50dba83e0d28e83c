// The URL is the view's state (DESIGN §7: deep links reload to the same view). A page reads its state from
// the query string and writes it back with `setParams`; the path under /app/ names the page.
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/app/';

export interface Route {
  /** The path under /app/, without leading or trailing slashes: `explore`, `settings/keys`, … */
  page: string;
  params: URLSearchParams;
}

const listeners = new Set<() => void>();

function current(): Route {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '';
  return { page: path.replace(/\/+$/, ''), params: new URLSearchParams(location.search) };
}

function notify(): void {
  for (const fn of listeners) fn();
}

window.addEventListener('popstate', notify);

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const fn = () => setRoute(current());
    listeners.add(fn);
    return () => {
      listeners.delete(fn);
    };
  }, []);
  return route;
}

export function hrefOf(page: string, params?: Record<string, string | undefined> | URLSearchParams): string {
  const qs = params instanceof URLSearchParams ? params : new URLSearchParams(
    Object.entries(params ?? {}).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''),
  );
  const text = qs.toString();
  return `${BASE}${page}${text === '' ? '' : `?${text}`}`;
}

export function navigate(href: string, opts: { replace?: boolean } = {}): void {
  if (href === location.pathname + location.search) return;
  if (opts.replace === true) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  notify();
}

/** Merges `changes` into the current query string (undefined removes a key). Replaces by default. */
export function setParams(changes: Record<string, string | undefined>, opts: { push?: boolean } = {}): void {
  const params = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === '') params.delete(k);
    else params.set(k, v);
  }
  const text = params.toString();
  navigate(location.pathname + (text === '' ? '' : `?${text}`), { replace: opts.push !== true });
}

/** Left clicks on in-app links move without reloading. */
export function linkClick(e: MouseEvent): void {
  const a = (e.target as Element | null)?.closest('a');
  if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target === '_blank') return;
  const href = a.getAttribute('href');
  if (href === null || !href.startsWith(BASE)) return;
  e.preventDefault();
  navigate(href);
}
