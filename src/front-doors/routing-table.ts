// The spec's routing rules 1–5 (Endpoints, Routing rules). The plane is chosen by path, never by host.

/** Rule 3: the only app-plane paths the ingest front door forwards. */
export const FORWARDED_TO_APP: ReadonlySet<string> = new Set([
  '/v1/metrics',
  '/api/v1/otel/v1/metrics',
  '/api/v1/write',
  '/write',
  '/api/v2/write',
  '/v1/rum/replay',
]);

/** A path as routed: a trailing slash is not significant (find-my-way ignores it too). */
export function normalizePath(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}
