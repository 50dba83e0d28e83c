// The candidates RCA tests (issue 10 item 1): field values and pairs of them by their share of the query's events
// in the incident vs the baseline, changes (values the baseline never had), and services whose error share jumped.
// Each becomes a Tested (rank.ts) with its shares, exact count, one-line summary and the LogsQL that shows it.
import type { LogRow, ValueCount, ValueCounts } from '../../stores/telemetry/telemetry-store.js';
import { andFilters, exactFilter, inFilter, timeFilter } from './logsql-text.js';
import type { Window } from './reads.js';
import { countText, pct, type Tested } from './rank.js';
import { gTest } from './stats.js';

/** Fields that name what is running: a new value of one is a deployment, the change Watchdog looks for first. */
export const VERSION_LIKE = /(^|[._-])(version|ver|deployment|deploy|release|image|commit|sha|revision|build)($|[._-])/i;
/** Fields never worth counting: unique per entry or the message itself (templates cover it). */
const SKIP = new Set(['_time', '_msg', '_stream', '_stream_id', 'trace_id', 'span_id']);
/** A field whose sampled values are mostly distinct is an id: its values cannot reach the minimum support. */
const MAX_DISTINCT_SHARE = 0.3;
/** A numeric field with more sampled values than this is a measurement (a duration, a size), not a category. */
const MAX_NUMERIC_DISTINCT = 50;
/**
 * Pairs are counted among the PAIR_FIELDS fields whose best value moved most in the samples, each with at most
 * PAIR_MAX_DISTINCT sampled values: every pair of fields costs the store another grouping over both windows, and
 * pairs are only tested among the top single candidates anyway.
 */
const PAIR_FIELDS = 4;
const PAIR_MAX_DISTINCT = 40;
/** Single candidates whose pairs are tested (issue 10: "pairs among the top single candidates"). */
export const TOP_SINGLES = 8;
export const ERROR_SEVERITIES = new Set(['error', 'err', 'fatal', 'critical', 'crit', 'alert', 'emerg', 'emergency', 'panic']);

export interface Fields {
  singles: string[];
  pairable: string[];
  versionLike: string[];
}

interface Seen {
  n: number;
  numeric: boolean;
  inc: Map<string, number>;
  base: Map<string, number>;
}

/** The fields worth counting, from the sampled rows of both windows. */
export function discoverFields(incRows: readonly LogRow[], baseRows: readonly LogRow[]): Fields {
  const seen = new Map<string, Seen>();
  const tally = (rows: readonly LogRow[], side: 'inc' | 'base') => {
    for (const row of rows) {
      for (const [k, v] of Object.entries(row)) {
        if (SKIP.has(k) || (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') || v === '') continue;
        let s = seen.get(k);
        if (!s) seen.set(k, (s = { n: 0, numeric: true, inc: new Map(), base: new Map() }));
        const text = String(v);
        s.n++;
        s.numeric &&= typeof v === 'number' || /^-?\d+(\.\d+)?$/.test(text);
        s[side].set(text, (s[side].get(text) ?? 0) + 1);
      }
    }
  };
  tally(incRows, 'inc');
  tally(baseRows, 'base');
  const distinct = (s: Seen) => new Set([...s.inc.keys(), ...s.base.keys()]).size;
  const fields = [...seen].filter(([, s]) => {
    const d = distinct(s);
    return d <= Math.max(10, MAX_DISTINCT_SHARE * s.n) && !(s.numeric && d > MAX_NUMERIC_DISTINCT);
  });
  // How far the field's most moved value moved in the samples: a rough, cheap ranking of where pairs may lie.
  const moved = (s: Seen) => Math.max(0, ...[...s.inc].map(([v, a]) => {
    const b = s.base.get(v) ?? 0;
    return a < 3 ? 0 : -gTest({ a, nA: incRows.length, b, nB: baseRows.length }).log10p;
  }));
  const pairable = fields.filter(([, s]) => distinct(s) > 1 && distinct(s) <= PAIR_MAX_DISTINCT)
    .map(([k, s]) => ({ k, m: moved(s) })).filter((x) => x.m > 2)
    .sort((a, b) => b.m - a.m || (a.k < b.k ? -1 : 1)).slice(0, PAIR_FIELDS).map((x) => x.k);
  return { singles: fields.map(([k]) => k).sort(), pairable, versionLike: [...seen.keys()].filter((k) => VERSION_LIKE.test(k)).sort() };
}

export interface Scope {
  filter: string;
  incident: Window;
  minSupport: number;
  /** What the shares are of, in summaries: "matching events", "errors". */
  noun: string;
}

const key = (field: string, value: string) => `${field}\u0000${value}`;

/**
 * Field values over-represented in the incident; a value the baseline never had (neither among the query's events
 * nor, when `everBefore` knows the field, among all of them) is a change.
 */
export function fieldValueTests(vc: ValueCounts, groups: string[][], scope: Scope, everBefore: Map<string, number>): Tested[] {
  const [nA = 0, nB = 0] = vc.totals;
  const out: Tested[] = [];
  for (const v of vc.values) {
    const field = groups[v.group]?.length === 1 ? groups[v.group]?.[0] : undefined;
    const value = v.values[0];
    if (field === undefined || value === undefined) continue;
    const [a = 0, b = 0] = v.counts;
    const t = shareTest(a, nA, b, nB, scope.minSupport);
    if (!t) continue;
    const before = everBefore.get(key(field, value));
    const change = b === 0 && (before === undefined || before === 0);
    const summary = change
      ? `${field}=${value} is new: on ${pct(t.shareA)} of ${scope.noun} (${countText(a)}) vs none before`
      : `${field}=${value} is on ${pct(t.shareA)} of ${scope.noun} (${countText(a)}) vs ${pct(t.shareB)} before`;
    out.push({
      log10p: t.log10p, excess: t.excess, baselineCount: b,
      hypothesis: {
        kind: change ? 'change' : 'field_value', field, value, incident_share: t.shareA, baseline_share: t.shareB, count: a,
        summary, query: andFilters(scope.filter, timeFilter(scope.incident.startMs, scope.incident.endMs), exactFilter(field, value)),
      },
    });
  }
  return out;
}

/** Baseline counts of values over every event, keyed field\0value, from single-field groups. */
export function everBeforeOf(vc: ValueCounts, groups: string[][]): Map<string, number> {
  const m = new Map<string, number>();
  for (const v of vc.values) {
    const g = groups[v.group];
    if (g?.length === 1 && g[0] !== undefined && v.values[0] !== undefined) m.set(key(g[0], v.values[0]), v.counts[1] ?? 0);
  }
  return m;
}

/**
 * Pairs of top single candidates whose pair is significantly more concentrated in the incident than each member
 * alone (among a member's events, the pair's share grew): only then does the pair say more than its members.
 */
export function pairTests(vc: ValueCounts, groups: string[][], singles: readonly Tested[], scope: Scope): Tested[] {
  const [nA = 0, nB = 0] = vc.totals;
  const top = new Map<string, Tested>();
  for (const t of [...singles].sort((x, y) => y.excess * -y.log10p - x.excess * -x.log10p).slice(0, TOP_SINGLES)) {
    if (t.hypothesis.field !== undefined && t.hypothesis.value !== undefined) top.set(key(t.hypothesis.field, t.hypothesis.value), t);
  }
  const pairs = vc.values.filter((v) => groups[v.group]?.length === 2);
  const candidates: { v: ValueCount; members: [Tested, Tested]; fields: [string, string] }[] = [];
  for (const v of pairs) {
    const [f1 = '', f2 = ''] = groups[v.group] ?? [];
    const m1 = top.get(key(f1, v.values[0] ?? ''));
    const m2 = top.get(key(f2, v.values[1] ?? ''));
    if (m1 && m2) candidates.push({ v, members: [m1, m2], fields: [f1, f2] });
  }
  // The "more concentrated than each member" tests are corrected for how many pairs were looked at (Bonferroni).
  const bound = Math.log10(0.01 / Math.max(1, candidates.length));
  const out: Tested[] = [];
  for (const { v, members, fields } of candidates) {
    const [a = 0, b = 0] = v.counts;
    const t = shareTest(a, nA, b, nB, scope.minSupport);
    if (!t) continue;
    const sharper = members.every((m) => {
      const mA = m.hypothesis.count;
      const mB = m.baselineCount;
      const within = gTest({ a, nA: mA, b, nB: mB });
      return mB > 0 && a / mA > b / mB && within.log10p <= bound;
    });
    if (!sharper) continue;
    const [v1 = '', v2 = ''] = v.values;
    out.push({
      log10p: t.log10p, excess: t.excess, baselineCount: b,
      hypothesis: {
        kind: 'field_value', field: fields.join(', '), value: v.values.join(', '), fields: [...fields], values: [...v.values], incident_share: t.shareA, baseline_share: t.shareB,
        count: a,
        summary: `${fields[0]}=${v1} together with ${fields[1]}=${v2} is on ${pct(t.shareA)} of ${scope.noun} (${countText(a)}) ` +
          `vs ${pct(t.shareB)} before, more than either alone`,
        query: andFilters(scope.filter, timeFilter(scope.incident.startMs, scope.incident.endMs), exactFilter(fields[0], v1), exactFilter(fields[1], v2)),
      },
    });
  }
  return out;
}

/** Services whose error share (errors / all their events, whatever the query) rose: from `[service, severity]` counts. */
export function serviceTests(vc: ValueCounts, group: number, incident: Window): Tested[] {
  const per = new Map<string, { n: [number, number]; e: [number, number] }>();
  const errorLevels = new Set<string>();
  for (const v of vc.values) {
    if (v.group !== group) continue;
    const [service = '', severity = ''] = v.values;
    let s = per.get(service);
    if (!s) per.set(service, (s = { n: [0, 0], e: [0, 0] }));
    const [a = 0, b = 0] = v.counts;
    s.n[0] += a;
    s.n[1] += b;
    if (ERROR_SEVERITIES.has(severity.toLowerCase())) {
      errorLevels.add(severity);
      s.e[0] += a;
      s.e[1] += b;
    }
  }
  const levels = [...errorLevels].sort();
  const out: Tested[] = [];
  for (const [service, s] of per) {
    const t = shareTest(s.e[0], s.n[0], s.e[1], s.n[1], 5);
    if (!t) continue;
    out.push({
      log10p: t.log10p, excess: t.excess, baselineCount: s.e[1],
      hypothesis: {
        kind: 'service', field: 'service', value: service, incident_share: t.shareA, baseline_share: t.shareB, count: s.e[0],
        summary: `${service}'s error share rose to ${pct(t.shareA)} (${countText(s.e[0])} errors of ${countText(s.n[0])} events) from ${pct(t.shareB)} before`,
        query: andFilters('', timeFilter(incident.startMs, incident.endMs), exactFilter('service', service), inFilter('severity', levels)),
      },
    });
  }
  return out;
}

/** The shares of a trait in both windows and its G-test, or null when it lacks support or did not grow. */
export function shareTest(a: number, nA: number, b: number, nB: number, minSupport: number):
  { shareA: number; shareB: number; excess: number; log10p: number } | null {
  if (a < minSupport || nA <= 0) return null;
  const shareA = a / nA;
  const shareB = nB > 0 ? b / nB : 0;
  if (shareA <= shareB) return null;
  return { shareA, shareB, excess: shareA - shareB, log10p: gTest({ a, nA, b, nB }).log10p };
}
