// Read-back helpers for the real-client tests (test/clients/*.e2e.test.ts): each test sends through a real
// npm client into the running service (test/support/service.ts) and reads the data back over the query API
// the way a user would — LogsQL for logs, the trace API for spans, the Prometheus API for metrics.
import { randomBytes } from 'node:crypto';
import { call, eventually, newAccount, startService, type Reply, type RunningService, type TestAccount } from '../support/service.js';

export type Row = Record<string, unknown>;

export const uid = (prefix = 'c'): string => `${prefix}${randomBytes(5).toString('hex')}`;

/** One service for the whole file (the machine has two cores) and a paid account whose plan turns nothing away. */
export async function startWithAccount(): Promise<{ svc: RunningService; acct: TestAccount }> {
  const svc = await startService();
  try {
    return { svc, acct: await newAccount(svc, { tier: 'custom' }) };
  } catch (e) {
    await svc.stop();
    throw e;
  }
}

function tenantUrl(svc: RunningService, acct: TestAccount, sub: string, params: Record<string, string> = {}): string {
  const qs = new URLSearchParams(params).toString();
  return `${svc.app}/api/v1/tenants/${acct.tenantId}/${sub}${qs === '' ? '' : '?' + qs}`;
}

export function tenantGet(svc: RunningService, acct: TestAccount, sub: string, params: Record<string, string> = {}): Promise<Reply> {
  return call(tenantUrl(svc, acct, sub, params), { headers: { 'X-API-Key': acct.key } });
}

/** LogsQL `query` (NDJSON rows, newest first). Throws on a non-200 so that a broken query is not read as "no rows". */
export async function logs(svc: RunningService, acct: TestAccount, query: string): Promise<Row[]> {
  const r = await tenantGet(svc, acct, 'select/logsql/query', { query });
  if (r.status !== 200) throw new Error(`LogsQL ${query}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Row);
}

/** Polls until `query` returns at least `n` rows (the write-ahead log drains asynchronously). */
export async function waitLogs(svc: RunningService, acct: TestAccount, query: string, n = 1, ms = 10_000): Promise<Row[]> {
  let rows: Row[] = [];
  await eventually(async () => {
    rows = await logs(svc, acct, query);
    return rows.length >= n;
  }, ms);
  return rows;
}

export interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

/** Prometheus API instant query; the `result` vector (throws unless `status: success`). */
export async function prom(svc: RunningService, acct: TestAccount, query: string): Promise<PromSample[]> {
  const r = await tenantGet(svc, acct, 'prometheus/api/v1/query', { query });
  const j = r.json as { status?: string; data?: { resultType?: string; result?: PromSample[] } } | undefined;
  if (r.status !== 200 || j?.status !== 'success') throw new Error(`PromQL ${query}: ${r.status} ${r.text.slice(0, 300)}`);
  return j.data?.result ?? [];
}

export async function waitProm(svc: RunningService, acct: TestAccount, query: string, n = 1, ms = 10_000): Promise<PromSample[]> {
  let result: PromSample[] = [];
  await eventually(async () => {
    result = await prom(svc, acct, query);
    return result.length >= n;
  }, ms);
  return result;
}

/** The sample whose labels include every pair of `labels`. */
export function sampleWith(result: PromSample[], labels: Record<string, string>): PromSample | undefined {
  return result.find((s) => Object.entries(labels).every(([k, v]) => s.metric[k] === v));
}

export interface SpanView {
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  name: string;
  kind: number;
  service: string;
  status: { code: number; message: string };
  attributes: Row;
  resource: Row;
  events: { name: string; time_unix_nano: string; attributes: Row }[];
  links: { trace_id: string; span_id: string; attributes: Row }[];
}

/** GET …/traces/<id> once it holds at least `n` spans; undefined when it never does. */
export async function waitTrace(svc: RunningService, acct: TestAccount, traceId: string, n: number, ms = 10_000): Promise<SpanView[] | undefined> {
  let spans: SpanView[] | undefined;
  await eventually(async () => {
    const r = await tenantGet(svc, acct, `traces/${traceId}`);
    spans = r.status === 200 ? (r.json as { spans: SpanView[] }).spans : undefined;
    return (spans?.length ?? 0) >= n;
  }, ms);
  return spans;
}

/** Today's `by_signal` of GET …/usage. */
export async function usageBySignal(svc: RunningService, acct: TestAccount): Promise<Record<string, number>> {
  const r = await tenantGet(svc, acct, 'usage');
  if (r.status !== 200) throw new Error(`usage: ${r.status} ${r.text.slice(0, 300)}`);
  return (r.json as { by_signal: Record<string, number> }).by_signal;
}
