// Query rate across processes (DESIGN §6 "Query rate", §10 "query-rate counts are shared through the control store";
// issue 11 item 6). The same sliding log as query-rate.ts — at most N admitted in any rolling 60 s per tenant, so a
// burst of N and no more — but the tenant's window lives in the control store, checked and appended in one
// statement, so several app processes together admit N, not N per process. The decisions and retry_after match the
// in-process limiter's; unlimited and zero limits never reach the store.
import type { Clock } from '../clock.js';
import type { ClusterStore } from '../stores/control/cluster-records.js';
import { QUERY_WINDOW_MS, ZERO_LIMIT_RETRY_SECONDS, type QueryRateDecision } from './query-rate.js';
import { orUnavailable } from './store-outage.js';

export class SharedQueryRate {
  constructor(private readonly store: Pick<ClusterStore, 'admitQuery'>, private readonly clock: Clock) {}

  async admit(tenantId: string, perMinute: number): Promise<QueryRateDecision> {
    if (perMinute === Infinity) return { ok: true };
    const limit = perMinute > 0 ? Math.floor(perMinute) : 0;
    if (limit === 0) return { ok: false, retryAfter: ZERO_LIMIT_RETRY_SECONDS };
    const now = this.clock.now();
    const r = await orUnavailable(this.store.admitQuery(tenantId, now, limit, QUERY_WINDOW_MS));
    if (r.ok) return r;
    return { ok: false, retryAfter: Math.max(1, Math.ceil((r.oldestMs + QUERY_WINDOW_MS - now) / 1000)) };
  }
}
