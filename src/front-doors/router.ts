// Path → handler tables for the planes, on find-my-way (fastify's router). A path that exists with
// another method answers 405; a path that does not exist is the caller's 404.
import FindMyWay from 'find-my-way';
import type { Handler } from './context.js';

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
const ALL_METHODS: Method[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export type RouteMatch =
  | { kind: 'handler'; handler: Handler; params: Record<string, string | undefined> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'none' };

export class Router {
  private readonly tree = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: false, caseSensitive: true });
  private readonly byPattern = new Map<string, Map<string, Handler>>();

  /** Registers `handler` for `methods` on `pattern` (find-my-way syntax: `/a/:id`, `/a/*`). */
  on(methods: Method | Method[], pattern: string, handler: Handler): this {
    let table = this.byPattern.get(pattern);
    if (!table) {
      table = new Map();
      this.byPattern.set(pattern, table);
      this.tree.on(ALL_METHODS, pattern, () => undefined, table);
    }
    for (const m of Array.isArray(methods) ? methods : [methods]) {
      if (table.has(m)) throw new Error(`route registered twice: ${m} ${pattern}`);
      table.set(m, handler);
    }
    return this;
  }

  /** Whether any route, whatever its method, answers this path. */
  owns(path: string): boolean {
    return this.tree.find('GET', path) !== null;
  }

  match(method: string, path: string): RouteMatch {
    const found = this.tree.find('GET', path);
    if (!found) return { kind: 'none' };
    const table = found.store as Map<string, Handler>;
    const handler = table.get(method) ?? (method === 'HEAD' ? table.get('GET') : undefined);
    if (!handler) return { kind: 'method-not-allowed', allowed: [...table.keys()] };
    return { kind: 'handler', handler, params: found.params };
  }
}
