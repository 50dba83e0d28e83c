// npm run bench:search (part of npm run bench): does search stay fast while the store grows (issue 12 item 4)? Ten
// million realistic, mostly unique entries (BENCH_SEARCH_ENTRIES to shrink it) in the real DuckDB telemetry store and
// the same entries as raw NDJSON, then a needle search and `stats by (service) count()` through the store's LogsQL
// read — the call select/logsql/query makes (streamLogs, with the route's default limit), parsed by the route's own
// parser — beside grep and jq over the raw file, all in one run. The raw file is read warm (from the page cache) by
// every tool, which is the fastest grep and jq can be. Store and grep figures are medians over several warm runs,
// taken in turns; jq is timed once, as it takes minutes. Figures only: nothing here passes or fails on a time
// (STYLE.md).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileLogsql } from '../src/query/logsql-request.js';
import type { LogRow } from '../src/stores/telemetry/telemetry-store.js';
import { percentile } from './load.js';
import { loadSearchData, type SearchData } from './search-data.js';
import { timeCommand, type CommandRun } from './timed-command.js';

const ENTRIES = Number(process.env.BENCH_SEARCH_ENTRIES ?? 10_000_000);
const RUNS = 5;
/** select/logsql/query's default (query/logs-api.ts). */
const ROUTE_LIMIT = 1000;
/** The strongest grep: byte-wise matching, no multibyte decoding. */
const C_LOCALE = { LC_ALL: 'C' };

type Timed<T> = { ms: number; value: T };

/**
 * The median wall time of each of `fns` over `runs` warm runs. They take turns, one run of each per round, so that
 * every one sees the same load from whatever else the machine is doing.
 */
async function medians<T extends unknown[]>(runs: number, fns: { [K in keyof T]: () => Promise<T[K]> }): Promise<{ [K in keyof T]: Timed<T[K]> }> {
  const list = fns as (() => Promise<unknown>)[];
  const values: unknown[] = [];
  for (const fn of list) values.push(await fn()); // warm-up: first touch of the file or of the store's blocks
  const times = list.map((): number[] => []);
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of list.entries()) {
      const t0 = performance.now();
      values[k] = await fn();
      times[k]?.push(performance.now() - t0);
    }
  }
  return list.map((_fn, k) => ({ ms: percentile(times[k] ?? [], 50), value: values[k] })) as { [K in keyof T]: Timed<T[K]> };
}

/** A LogsQL query through the store as select/logsql/query runs it: streamed, every chunk collected. */
async function logsql(d: SearchData, text: string): Promise<LogRow[]> {
  const rows: LogRow[] = [];
  await d.store.streamLogs(d.tenantId, compileLogsql(text, Date.now()), {}, ROUTE_LIMIT, (chunk) => {
    rows.push(...chunk);
    return Promise.resolve(true);
  });
  return rows;
}

const ms = (x: number): string => `${Math.round(x).toLocaleString('en')} ms`;
const secs = (x: number): string => (x >= 10_000 ? `${(x / 1000).toFixed(0)} s` : ms(x));
function versus(ours: number, theirs: number): string {
  return theirs >= ours ? `${(theirs / ours).toFixed(1)}× faster` : `${(ours / theirs).toFixed(1)}× slower`;
}

/** `"service":"x"` counts (grep -o | uniq -c) or jq's object, as one comparable map. */
function countsOf(rows: { service: string; n: number }[]): string {
  return rows.sort((a, b) => (a.service < b.service ? -1 : 1)).map((r) => `${r.service}=${r.n}`).join(',');
}

async function run(d: SearchData): Promise<void> {
  const gb = (d.rawBytes / 1e9).toFixed(2);
  const storeBytes = (await stat(d.storePath)).size;
  console.log(`search: ${d.entries.toLocaleString('en')} distinct realistic entries, ${gb} GB raw NDJSON, ` +
    `${(storeBytes / 1e9).toFixed(2)} GB in DuckDB; loaded in ${d.loadSeconds.toFixed(0)} s straight through the ` +
    `store's write() in 50k-entry batches parsed by the native parser (not through HTTP)`);

  const lines = (s: string) => s.split('\n').filter((l) => l !== '').length;
  for (const [label, needle] of [['needle (a UUID)', d.needles.id], ['needle (letters only)', d.needles.word]] as const) {
    const [ours, grep, grepI] = await medians<[LogRow[], CommandRun, CommandRun]>(RUNS, [
      () => logsql(d, needle),
      () => timeCommand('grep', ['-F', needle, d.rawPath], C_LOCALE),
      () => timeCommand('grep', ['-iF', needle, d.rawPath], C_LOCALE),
    ]);
    // jq answers in minutes whatever the needle; once is enough.
    const jq = needle === d.needles.id ? await timeCommand('jq', ['-c', `select(._msg|contains("${needle}"))`, d.rawPath]) : null;
    console.log(`${label}: sightline ${ms(ours.ms)}, grep -F ${ms(grep.ms)} (${versus(ours.ms, grep.ms)}), ` +
      `grep -iF ${ms(grepI.ms)} (${versus(ours.ms, grepI.ms)})` +
      (jq ? `, jq ${secs(jq.ms)} (${versus(ours.ms, jq.ms)})` : '') +
      `; found ${[ours.value.length, lines(grep.value.stdout), lines(grepI.value.stdout), ...(jq ? [lines(jq.stdout)] : [])].join(' / ')}`);
  }

  const [stats, grepStats] = await medians<[LogRow[], CommandRun]>(RUNS, [
    () => logsql(d, '* | stats by (service) count() as n'),
    // grep has no grouping: the usual shell stand-in is grep -o of the key, then sort | uniq -c.
    () => timeCommand('bash', ['-c', `grep -o '"service":"[^"]*"' "$1" | sort | uniq -c`, '_', d.rawPath], C_LOCALE),
  ]);
  const jqStats = await timeCommand('jq', ['-n', '-c', 'reduce inputs as $e ({}; .[$e.service] += 1)', d.rawPath]);
  const ours = countsOf(stats.value.map((r) => ({ service: String(r.service), n: Number(r.n) })));
  const grepped = countsOf(grepStats.value.stdout.trim().split('\n').map((l) => {
    const m = /^\s*(\d+) "service":"(.*)"$/.exec(l);
    return { service: m?.[2] ?? l, n: Number(m?.[1]) };
  }));
  const jqCounts = countsOf(Object.entries(JSON.parse(jqStats.stdout) as Record<string, number>).map(([service, n]) => ({ service, n })));
  const total = stats.value.reduce((n, r) => n + Number(r.n), 0);
  console.log(`stats by (service) count(): sightline ${ms(stats.ms)}, grep -o | sort | uniq -c ${ms(grepStats.ms)} ` +
    `(${versus(stats.ms, grepStats.ms)}), jq reduce ${secs(jqStats.ms)} (${versus(stats.ms, jqStats.ms)}); ` +
    `${stats.value.length} services, ${total.toLocaleString('en')} counted, ` +
    (ours === grepped && ours === jqCounts ? 'the same counts from all three' : `counts differ: ${ours} | ${grepped} | ${jqCounts}`));
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sightline-search-bench-'));
  try {
    const d = await loadSearchData(dir, ENTRIES);
    try {
      await run(d);
    } finally {
      await d.store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
