// The store reads of one RCA, each recorded in the evidence with LogsQL a person can paste into Explore to get the
// same numbers (DESIGN §9). Aggregation stays in the store: a million events never cross into JS (issue 10 item 1's
// 2 s bound); only bounded samples of messages do, for Drain and for finding the fields worth counting.
import type { AiReadContext } from '../model.js';
import { compileLogsql } from '../../query/logsql-request.js';
import type { LogRow, ValueCounts } from '../../stores/telemetry/telemetry-store.js';
import { msToNs } from '../../model/time.js';
import { andFilters, fieldText, timeFilter } from './logsql-text.js';

export interface Window {
  startMs: number;
  endMs: number;
}

const rangeOf = (w: Window) => ({ startNs: msToNs(w.startMs), endNs: msToNs(w.endMs) });

/** Slices per window a sample is spread over, so that it sees the whole window and not just its newest end. */
const SAMPLE_SLICES = 4;

/**
 * About `size` entries of the window spread over SAMPLE_SLICES equal slices, the newest of each slice (a store's
 * natural order; `| limit n` in Explore shows the same rows).
 */
export async function sampleEntries(ctx: AiReadContext, filter: string, w: Window, size: number, what: string): Promise<LogRow[]> {
  const per = Math.max(1, Math.ceil(size / SAMPLE_SLICES));
  const slices = Array.from({ length: SAMPLE_SLICES }, (_x, i) => ({
    startMs: w.startMs + Math.floor(((w.endMs - w.startMs) * i) / SAMPLE_SLICES),
    endMs: w.startMs + Math.floor(((w.endMs - w.startMs) * (i + 1)) / SAMPLE_SLICES),
  })).filter((s) => s.endMs > s.startMs);
  const parts = await Promise.all(slices.map(async (s) => {
    const text = `${andFilters(filter, timeFilter(s.startMs, s.endMs))} | limit ${per}`;
    ctx.evidence.add('logs', text, s.startMs, s.endMs, `sample of ${what} for message templates and field discovery`);
    return ctx.telemetry.searchLogs(ctx.tenantId, compileLogsql(text, ctx.nowMs), rangeOf(s), per);
  }));
  return parts.flat();
}

/**
 * Exact counts of the values (and value pairs) of `groups` in the incident and the baseline window, in one pass
 * (telemetry-store.ts logValueCounts). The evidence gives, per window, the per-field `stats by (f) count()` whose
 * numbers these are, and one breakdown by the paired fields whose sums give the pairs.
 */
export async function valueCounts(
  ctx: AiReadContext, filter: string, incident: Window, baseline: Window, groups: string[][], minCount: number, what: string,
): Promise<ValueCounts> {
  const singles = groups.filter((g) => g.length === 1).map((g) => g[0] ?? '');
  const paired = [...new Set(groups.filter((g) => g.length > 1).flat())];
  for (const [w, name] of [[incident, 'the incident'], [baseline, 'the baseline']] as const) {
    const scoped = andFilters(filter, timeFilter(w.startMs, w.endMs));
    ctx.evidence.add('logs', `${scoped} | stats count()`, w.startMs, w.endMs, `${what} in ${name}`);
    for (const f of singles) {
      ctx.evidence.add('logs', `${scoped} | stats by (${fieldText(f)}) count()`, w.startMs, w.endMs, `${what} in ${name} per ${f} value`);
    }
    if (paired.length > 0) {
      ctx.evidence.add('logs', `${scoped} | stats by (${paired.map(fieldText).join(', ')}) count()`, w.startMs, w.endMs,
        `${what} in ${name} per combination of values (summed for each pair of these fields)`);
    }
  }
  return ctx.telemetry.logValueCounts(ctx.tenantId, compileLogsql(filter === '' ? '*' : filter, ctx.nowMs), {
    ranges: [rangeOf(incident), rangeOf(baseline)], groups, minCount,
  });
}

/** Entries a filter selects in one window (`| stats count()`). */
export async function countIn(ctx: AiReadContext, filter: string, w: Window, purpose: string): Promise<number> {
  const text = `${andFilters(filter, timeFilter(w.startMs, w.endMs))} | stats count()`;
  ctx.evidence.add('logs', text, w.startMs, w.endMs, purpose);
  const rows = await ctx.telemetry.searchLogs(ctx.tenantId, compileLogsql(text, ctx.nowMs), rangeOf(w), 1);
  return Number(rows[0]?.['count(*)'] ?? 0);
}
