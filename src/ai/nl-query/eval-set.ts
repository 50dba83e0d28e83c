// The evaluation set of `ai/query` (issue 10 item 2: "Keep an evaluation set of at least 60 questions with their
// expected results in the tests, and report its accuracy"). Each question has the signal, query and range it must
// get over the fixture of eval-fixture.ts at EVAL_NOW_MS, or the words it must refuse. Queries are compared in a
// canonical form (LogsQL: the parsed filter with AND/OR operands in a fixed order, so `a b` equals `b a`; PromQL:
// whitespace-free text; trace searches: their key/value pairs), ranges exactly.
import { parseLogsql } from '../../query/logsql/parser.js';
import type { Filter, LogsqlQuery } from '../../model/logsql-ast.js';
import { msToNs } from '../../model/time.js';
import type { NlAnswer } from './nl-query.js';
import { NlUnplaceable } from './nl-query.js';
import { EVAL_NOW_MS } from './eval-fixture.js';

export type EvalCase =
  | { question: string; signal: NlAnswer['signal']; query: string; start: string; end: string }
  | { question: string; refuse: string[] };

const NOW = '2026-11-21T12:00:00Z';
const HOUR_AGO = '2026-11-21T11:00:00Z';
const TODAY = '2026-11-21T00:00:00Z';
const YESTERDAY = '2026-11-20T00:00:00Z';
const MONDAY = '2026-11-16T00:00:00Z';

const logs = (question: string, query: string, start = HOUR_AGO, end = NOW): EvalCase => ({ question, signal: 'logs', query, start, end });
const metrics = (question: string, query: string, start = HOUR_AGO, end = NOW): EvalCase => ({ question, signal: 'metrics', query, start, end });
const traces = (question: string, query: string, start = HOUR_AGO, end = NOW): EvalCase => ({ question, signal: 'traces', query, start, end });
const refuse = (question: string, ...words: string[]): EvalCase => ({ question, refuse: words });
const DUR = 'http_request_duration_seconds';

export const EVAL_SET: readonly EvalCase[] = [
  // --- DESIGN §9's example and plain filters ---
  logs('errors from checkout in the last hour', '_time:1h service:checkout level:error'),
  logs('show me warnings from cart over the past 15 minutes', '_time:15m service:cart level:warn', '2026-11-21T11:45:00Z'),
  logs('checkout service errors', 'service:checkout level:error'),
  logs('fatal logs from payments', 'service:payments level:fatal'),
  logs('debug logs from frontend in the last 2 hours', '_time:2h service:frontend level:debug', '2026-11-21T10:00:00Z'),
  logs('errors and warnings from checkout or cart yesterday', `_time:[${YESTERDAY}, ${TODAY}) (level:error or level:warn) (service:checkout or service:cart)`, YESTERDAY, TODAY),
  logs('show me the logs', '*'),
  logs('logs from the api gateway', 'service:api-gateway'),
  logs('api-gateway errors', 'service:api-gateway level:error'),
  logs('errors from api', 'service:="api" level:error'),
  logs('payment logs', 'service:payments'),
  logs('fatal or critical logs this week', `_time:[${MONDAY}, ${NOW}) (level:fatal or level:critical)`, MONDAY),
  // --- time expressions ---
  logs('errors in the last 2 hours', '_time:2h level:error', '2026-11-21T10:00:00Z'),
  logs('errors today', `_time:[${TODAY}, ${NOW}) level:error`, TODAY),
  logs('errors from yesterday', `_time:[${YESTERDAY}, ${TODAY}) level:error`, YESTERDAY, TODAY),
  logs('errors since yesterday 9am', `_time:[2026-11-20T09:00:00Z, ${NOW}) level:error`, '2026-11-20T09:00:00Z'),
  logs('errors between 10:00 and 10:30 UTC', '_time:[2026-11-21T10:00:00Z, 2026-11-21T10:30:00Z) level:error', '2026-11-21T10:00:00Z', '2026-11-21T10:30:00Z'),
  logs('errors between 14:00 and 15:00', '_time:[2026-11-20T14:00:00Z, 2026-11-20T15:00:00Z) level:error', '2026-11-20T14:00:00Z', '2026-11-20T15:00:00Z'),
  logs('fatal logs on 2026-11-20', `_time:[${YESTERDAY}, ${TODAY}) level:fatal`, YESTERDAY, TODAY),
  logs('errors this week', `_time:[${MONDAY}, ${NOW}) level:error`, MONDAY),
  logs('errors since monday', `_time:[${MONDAY}, ${NOW}) level:error`, MONDAY),
  logs('errors from the past couple of hours', '_time:2h level:error', '2026-11-21T10:00:00Z'),
  logs('warnings over the last 3 days', '_time:3d level:warn', '2026-11-18T12:00:00Z'),
  logs('errors in the past week', '_time:1w level:error', '2026-11-14T12:00:00Z'),
  logs('errors yesterday between 9am and 11am', '_time:[2026-11-20T09:00:00Z, 2026-11-20T11:00:00Z) level:error', '2026-11-20T09:00:00Z', '2026-11-20T11:00:00Z'),
  logs('errors from 08:00 to 09:15 utc', '_time:[2026-11-21T08:00:00Z, 2026-11-21T09:15:00Z) level:error', '2026-11-21T08:00:00Z', '2026-11-21T09:15:00Z'),
  logs('logs from checkout since 2026-11-19', `_time:[2026-11-19T00:00:00Z, ${NOW}) service:checkout`, '2026-11-19T00:00:00Z'),
  logs('errors in the last 30m', '_time:30m level:error', '2026-11-21T11:30:00Z'),
  // --- negation ---
  logs('errors not from cart', 'level:error -service:cart'),
  logs('logs except payments', '-service:payments'),
  logs('logs except payments, cart and api in the last 2 hours', '_time:2h -service:payments -service:cart -service:="api"', '2026-11-21T10:00:00Z'),
  logs('errors from checkout excluding debug', 'service:checkout level:error -level:debug'),
  logs('not debug logs from frontend', 'service:frontend -level:debug'),
  logs('logs not from cart or payments yesterday', `_time:[${YESTERDAY}, ${TODAY}) -service:cart -service:payments`, YESTERDAY, TODAY),
  logs('warnings except from checkout in region eu-west-1', 'level:warn -service:checkout region:eu-west-1'),
  logs('all logs but debug from cart', 'service:cart -level:debug'),
  logs('errors without a trace id', 'level:error -trace_id:*'),
  logs('errors not containing timeout', 'level:error -"timeout"'),
  logs('errors other than those from cart', 'level:error -service:cart'),
  // --- counts, breakdowns, top-N ---
  logs('how many errors', 'level:error | stats count()'),
  logs('how many errors per service today', `_time:[${TODAY}, ${NOW}) level:error | stats by (service) count()`, TODAY),
  logs('errors per service', 'level:error | stats by (service) count()'),
  logs('count by host this week', `_time:[${MONDAY}, ${NOW}) | stats by (host) count()`, MONDAY),
  logs('count of logs per service and host', '* | stats by (service, host) count()'),
  logs('number of errors per hour today', `_time:[${TODAY}, ${NOW}) level:error | stats by (_time:1h) count()`, TODAY),
  logs('errors per minute in the last 15 minutes', '_time:15m level:error | stats by (_time:1m) count()', '2026-11-21T11:45:00Z'),
  logs('how many distinct customers had errors today', `_time:[${TODAY}, ${NOW}) level:error | stats count_uniq(customer_id)`, TODAY),
  logs('warnings broken down by region', 'level:warn | stats by (region) count()'),
  logs('top 5 services by errors', 'level:error | stats by (service) count() hits | sort by (hits desc) | limit 5'),
  logs('top 3 hosts by error count', 'level:error | stats by (host) count() hits | sort by (hits desc) | limit 3'),
  logs('top 3 hosts by errors since 30 minutes ago', '_time:30m level:error | stats by (host) count() hits | sort by (hits desc) | limit 3', '2026-11-21T11:30:00Z'),
  logs('top 10 customers', '* | stats by (customer_id) count() hits | sort by (hits desc) | limit 10'),
  logs('which service has the most errors', 'level:error | stats by (service) count() hits | sort by (hits desc) | limit 1'),
  logs('which host logged the most warnings yesterday', `_time:[${YESTERDAY}, ${TODAY}) level:warn | stats by (host) count() hits | sort by (hits desc) | limit 1`, YESTERDAY, TODAY),
  logs('most common error messages', 'level:error | stats by (_msg) count() hits | sort by (hits desc) | limit 10'),
  logs('last 5 errors from payments', 'level:error service:payments | sort by (_time desc) | limit 5'),
  logs('error count for each version', 'level:error | stats by (version) count()'),
  // --- phrases ---
  logs("errors containing 'timeout'", 'level:error "timeout"'),
  logs('logs with message connection refused since yesterday 9am', `_time:[2026-11-20T09:00:00Z, ${NOW}) "connection refused"`, '2026-11-20T09:00:00Z'),
  logs('payment logs containing "card declined"', 'service:payments "card declined"'),
  logs('errors mentioning timeout from checkout', 'level:error "timeout" service:checkout'),
  logs('logs matching "cache miss" on web-2', '"cache miss" host:web-2'),
  // --- fields and values of the tenant ---
  logs('errors on host web-1', 'level:error host:="web-1"'),
  logs('errors on web-10 in the past 30 minutes', '_time:30m level:error host:web-10', '2026-11-21T11:30:00Z'),
  logs('logs for customer 42', 'customer_id:42'),
  logs('warnings for customer 7', 'level:warn customer_id:="7"'),
  logs('errors in region eu-west-1', 'level:error region:eu-west-1'),
  logs('logs from version v1.5.0 since 2026-11-19', `_time:[2026-11-19T00:00:00Z, ${NOW}) version:v1.5.0`, '2026-11-19T00:00:00Z'),
  logs('logs with status 500', 'status:500'),
  logs('logs with status above 499', 'status:>499'),
  logs('logs with a trace id', 'trace_id:*'),
  logs('errors in cluster eu1', 'level:error _stream:{cluster="eu1"}'),
  logs('POST logs from cart', 'method:POST service:cart'),
  // --- metrics ---
  metrics('cpu usage of checkout', 'sum(rate(process_cpu_seconds_total{service="checkout"}[5m]))'),
  metrics('cpu usage on host web-2', 'sum(rate(node_cpu_seconds_total{host="web-2", mode!="idle"}[5m]))'),
  metrics('p99 latency of api', `histogram_quantile(0.99, sum by (le) (rate(${DUR}_bucket{service="api"}[5m])))`),
  metrics('p95 latency by service in the last 6 hours', `histogram_quantile(0.95, sum by (le, service) (rate(${DUR}_bucket[5m])))`, '2026-11-21T06:00:00Z'),
  metrics('median latency by service', `histogram_quantile(0.5, sum by (le, service) (rate(${DUR}_bucket[5m])))`),
  metrics('average latency of checkout', `sum(rate(${DUR}_sum{service="checkout"}[5m])) / sum(rate(${DUR}_count{service="checkout"}[5m]))`),
  metrics('request rate by service', 'sum by (service) (rate(http_requests_total[5m]))'),
  metrics('request rate of checkout except status 500', 'sum(rate(http_requests_total{service="checkout", status!="500"}[5m]))'),
  metrics('error rate of checkout', 'sum(rate(http_requests_total{service="checkout", status=~"5.."}[5m]))'),
  metrics('top 3 services by request rate', 'topk(3, sum by (service) (rate(http_requests_total[5m])))'),
  metrics('how many requests to checkout in the last 24 hours', 'sum(increase(http_requests_total{service="checkout"}[1d]))', '2026-11-20T12:00:00Z'),
  metrics('memory usage by host', 'sum by (host) (process_resident_memory_bytes)'),
  metrics('memory of payments', 'sum(process_resident_memory_bytes{service="payments"})'),
  metrics('goroutines of cart', 'sum(go_goroutines{service="cart"})'),
  metrics('http_requests_total by status', 'sum by (status) (rate(http_requests_total[5m]))'),
  metrics('max memory of checkout or cart', 'max(process_resident_memory_bytes{service=~"checkout|cart"})'),
  metrics('throughput of frontend yesterday', 'sum(rate(http_requests_total{service="frontend"}[5m]))', YESTERDAY, TODAY),
  // --- traces ---
  traces('slow traces from checkout over 500ms', 'service=checkout&min_duration_ms=500'),
  traces('failed traces', 'status=error'),
  traces('traces from payments longer than 2 seconds', 'service=payments&min_duration_ms=2000'),
  traces('traces of GET /cart', 'name=GET+%2Fcart'),
  traces('failed traces from checkout in the last day', 'service=checkout&status=error', '2026-11-20T12:00:00Z'),
  traces('spans from cart taking more than 300 ms', 'service=cart&min_duration_ms=300'),
  // --- phrasings written after the grammar, to keep the figure honest ---
  logs('Show all error logs from checkout for the past 45 minutes', '_time:45m service:checkout level:error', '2026-11-21T11:15:00Z'),
  logs('any fatal errors in payments today?', `_time:[${TODAY}, ${NOW}) service:payments level:fatal`, TODAY),
  logs('How many warnings were logged by the cart service in the last 6 hours?', '_time:6h service:cart level:warn | stats count()', '2026-11-21T06:00:00Z'),
  logs('errors grouped by host for the last day', '_time:1d level:error | stats by (host) count()', '2026-11-20T12:00:00Z'),
  logs('count errors by customer', 'level:error | stats by (customer_id) count()'),
  logs('top 5 customers by errors this week', `_time:[${MONDAY}, ${NOW}) level:error | stats by (customer_id) count() hits | sort by (hits desc) | limit 5`, MONDAY),
  logs('logs from checkout excluding info and debug', 'service:checkout -level:info -level:debug'),
  logs('errors from all services except api-gateway', 'level:error -service:api-gateway'),
  logs('how many logs did frontend produce yesterday', `_time:[${YESTERDAY}, ${TODAY}) service:frontend | stats count()`, YESTERDAY, TODAY),
  logs('warnings or errors on web-3 since 06:00', `_time:[2026-11-21T06:00:00Z, ${NOW}) (level:warn or level:error) host:web-3`, '2026-11-21T06:00:00Z'),
  logs('logs containing connection refused from payments in the past hour', '_time:1h "connection refused" service:payments'),
  logs("errors with the text 'disk full'", 'level:error "disk full"'),
  logs('number of unique hosts per service', '* | stats by (service) count_uniq(host)'),
  logs('logs where status is 503', 'status:503'),
  logs('logs with status 404 from cart', 'status:404 service:cart'),
  logs('errors in us-east-1 yesterday', `_time:[${YESTERDAY}, ${TODAY}) level:error region:us-east-1`, YESTERDAY, TODAY),
  logs('errors from version v1.4.2 on web-2', 'level:error version:v1.4.2 host:web-2'),
  logs('logs from the checkout service in cluster us2', 'service:checkout _stream:{cluster="us2"}'),
  logs('show errors from checkout, cart and payments', 'level:error (service:checkout or service:cart or service:payments)'),
  logs('errors per service per hour', 'level:error | stats by (service, _time:1h) count()'),
  logs('logs for customer 9999', 'customer_id:="9999"'),
  logs('debug messages from api-gateway in the past 10 min', '_time:10m service:api-gateway level:debug', '2026-11-21T11:50:00Z'),
  logs('errors from checkout between 2026-11-18 and 2026-11-20', '_time:[2026-11-18T00:00:00Z, 2026-11-21T00:00:00Z) service:checkout level:error', '2026-11-18T00:00:00Z', TODAY),
  logs('errors since 9:30am', `_time:[2026-11-21T09:30:00Z, ${NOW}) level:error`, '2026-11-21T09:30:00Z'),
  logs('which host has the most errors today', `_time:[${TODAY}, ${NOW}) level:error | stats by (host) count() hits | sort by (hits desc) | limit 1`, TODAY),
  logs('errors not on web-1 or web-2', 'level:error -host:="web-1" -host:web-2'),
  metrics("What's the p90 latency for checkout over the last 3 hours?", `histogram_quantile(0.9, sum by (le) (rate(${DUR}_bucket{service="checkout"}[5m])))`, '2026-11-21T09:00:00Z'),
  metrics('99th percentile latency per service', `histogram_quantile(0.99, sum by (le, service) (rate(${DUR}_bucket[5m])))`),
  metrics('requests per second for payments', 'sum(rate(http_requests_total{service="payments"}[5m]))'),
  metrics('cpu usage by service', 'sum by (service) (rate(process_cpu_seconds_total[5m]))'),
  metrics('average memory of checkout', 'avg(process_resident_memory_bytes{service="checkout"})'),
  metrics('5xx rate by service', 'sum by (service) (rate(http_requests_total{status=~"5.."}[5m]))'),
  traces('failing traces from payments yesterday', 'service=payments&status=error', YESTERDAY, TODAY),
  traces('traces slower than 1s from api', 'service=api&min_duration_ms=1000'),
  traces('traces of charge card over 800 ms', 'name=charge+card&min_duration_ms=800'),
  refuse('show me the flux capacitor logs', 'flux', 'capacitor'),
  refuse('errors in the last fortnight', 'fortnight'),
  refuse('latency of the database', 'database'),
  // --- refusals: words it must name rather than guess ---
  refuse('what is the weather in paris', 'weather', 'paris'),
  refuse('errors from checkout in the last hour in PST', 'PST'),
  refuse('errors from mars', 'mars'),
  refuse('errors from checkout with bananas', 'bananas'),
  refuse('logs from the billing service', 'billing'),
  refuse('cpu usage of the toaster', 'toaster'),
  refuse('traces not from cart', 'not'),
  refuse('errors yesterday 9am', '9am'),
];

// --- scoring ---

function canonicalFilter(f: Filter): unknown {
  if (f.kind === 'and' || f.kind === 'or') {
    const parts = f.filters.map(canonicalFilter).map((x) => JSON.stringify(x, bigints)).sort();
    return { kind: f.kind, filters: parts };
  }
  if (f.kind === 'not') return { kind: 'not', filter: canonicalFilter(f.filter) };
  return f;
}

function bigints(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}

/** LogsQL in a form where operand order does not matter; relative times resolve against the eval's now. */
export function canonicalLogsql(text: string, nowMs: number = EVAL_NOW_MS): string {
  const q: LogsqlQuery = parseLogsql(text, msToNs(nowMs));
  return JSON.stringify({ filter: canonicalFilter(q.filter), pipes: q.pipes }, bigints);
}

function canonical(signal: NlAnswer['signal'], query: string): string {
  if (signal === 'logs') return canonicalLogsql(query);
  if (signal === 'metrics') return query.replace(/\s+/g, '');
  return [...new URLSearchParams(query)].map(([k, v]) => `${k}=${v}`).sort().join('&');
}

export interface EvalResult {
  question: string;
  ok: boolean;
  /** What was expected and what came back, when not ok. */
  why?: string;
}

/** Judges one answer (or the error thrown) against its case. */
export function judge(c: EvalCase, got: NlAnswer | Error): EvalResult {
  if ('refuse' in c) {
    if (!(got instanceof NlUnplaceable)) return { question: c.question, ok: false, why: `expected a refusal naming ${c.refuse.join(', ')}, got ${got instanceof Error ? got.message : got.query}` };
    const named = got.words.map((w) => w.toLowerCase());
    const missing = c.refuse.filter((w) => !named.includes(w.toLowerCase()));
    return missing.length === 0 ? { question: c.question, ok: true } : { question: c.question, ok: false, why: `refusal did not name ${missing.join(', ')} (named ${got.words.join(', ')})` };
  }
  if (got instanceof Error) return { question: c.question, ok: false, why: `expected ${c.query}, got error ${got.message}` };
  const same = got.signal === c.signal && canonical(c.signal, got.query) === canonical(c.signal, c.query)
    && Date.parse(got.start) === Date.parse(c.start) && Date.parse(got.end) === Date.parse(c.end);
  return same ? { question: c.question, ok: true }
    : { question: c.question, ok: false, why: `expected [${c.signal}] ${c.query} ${c.start}..${c.end}, got [${got.signal}] ${got.query} ${got.start}..${got.end}` };
}

export interface EvalReport {
  passed: number;
  total: number;
  /** passed / total, 0..1. */
  accuracy: number;
  results: EvalResult[];
}

/** Runs every case through `answer` (answerQuestion bound to a store holding the fixture) and scores it. */
export async function evaluate(answer: (question: string) => Promise<NlAnswer>, cases: readonly EvalCase[] = EVAL_SET): Promise<EvalReport> {
  const results: EvalResult[] = [];
  for (const c of cases) {
    let got: NlAnswer | Error;
    try {
      got = await answer(c.question);
    } catch (e) {
      got = e instanceof Error ? e : new Error(String(e));
    }
    results.push(judge(c, got));
  }
  const passed = results.filter((r) => r.ok).length;
  return { passed, total: results.length, accuracy: results.length === 0 ? 0 : passed / results.length, results };
}
