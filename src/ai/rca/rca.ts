// Root-cause hypotheses (DESIGN §9 `ai/rca`, issue 10 item 1): what sets the events a LogsQL query selects in a
// window apart from a baseline. Three rounds of reads, each run concurrently where independent:
//   1. bounded samples of both windows (reads.ts) — the fields worth counting, and messages for Drain;
//   2. one pass of exact value and value-pair counts in both windows (the store's logValueCounts), the services'
//      error shares over all their events, and exact counts of the short-listed Drain templates;
//   3. the tests (candidates.ts), one Benjamini–Hochberg family, and the ranking (rank.ts).
import { errors } from '../../errors.js';
import { compileLogsql } from '../../query/logsql-request.js';
import { msToRfc3339 } from '../evidence.js';
import type { AiReadContext, RcaRequest, RcaResult } from '../model.js';
import {
  discoverFields, everBeforeOf, fieldValueTests, pairTests, serviceTests, shareTest, type Fields, type Scope,
} from './candidates.js';
import { andFilters, filterPart, timeFilter } from './logsql-text.js';
import { patternCandidates } from './patterns.js';
import { countText, pct, rank, type Tested } from './rank.js';
import { countIn, sampleEntries, valueCounts, type Window } from './reads.js';

/** Entries sampled per window: enough for Drain to see every template above ~0.2% share. */
const SAMPLE_SIZE = 1800;
/** Drain templates whose exact counts are read. */
const PATTERNS = 3;
/** Issue 10: "a minimum support (e.g. ≥ max(5, 1% of incident))". */
const MIN_SUPPORT_ABS = 5;
const MIN_SUPPORT_SHARE = 0.01;

export async function rootCauseHypotheses(req: RcaRequest, ctx: AiReadContext): Promise<RcaResult> {
  const { incident, baseline } = windows(req);
  compileLogsql(req.query, ctx.nowMs); // a bad query is a 400 with its position, before any read
  const filter = filterPart(req.query);
  const selectsAll = filter === '' || filter === '*';

  const [incRows, baseRows] = await Promise.all([
    sampleEntries(ctx, filter, incident, SAMPLE_SIZE, 'the incident'),
    sampleEntries(ctx, filter, baseline, SAMPLE_SIZE, 'the baseline'),
  ]);
  const result = (hypotheses: RcaResult['hypotheses'], nA: number, nB: number): RcaResult => ({
    hypotheses, incident_count: nA, baseline_count: nB, baseline: { start: msToRfc3339(baseline.startMs), end: msToRfc3339(baseline.endMs) },
  });
  if (incRows.length === 0) return result([], 0, await countIn(ctx, filter, baseline, 'events the query selects in the baseline'));

  const fields = discoverFields(incRows, baseRows);
  const groups = groupsOf(fields, selectsAll);
  // Services and deployments are judged over every event (an error share needs the service's other events too);
  // when the query selects everything, the query's own counts are those.
  const allGroups: string[][] = [['service', 'severity'], ...fields.versionLike.map((f) => [f])];
  const msgs = (rows: typeof incRows) => rows.map((r) => (typeof r._msg === 'string' ? r._msg : ''));
  const patterns = patternCandidates(msgs(incRows), msgs(baseRows), PATTERNS);

  const [vc, all, patternCounts] = await Promise.all([
    valueCounts(ctx, filter, incident, baseline, groups, MIN_SUPPORT_ABS, 'events the query selects'),
    selectsAll ? Promise.resolve(null) : valueCounts(ctx, '', incident, baseline, allGroups, 1, 'all events'),
    Promise.all(patterns.map(async (p) => {
      const f = andFilters(filter, `_msg:~${JSON.stringify(p.regexp)}`);
      const [a, b] = await Promise.all([
        countIn(ctx, f, incident, `events of the template "${p.pattern}" in the incident`),
        countIn(ctx, f, baseline, `events of the template "${p.pattern}" in the baseline`),
      ]);
      return { p, a, b, filter: f };
    })),
  ]);

  const [nA = 0, nB = 0] = vc.totals;
  const scope: Scope = {
    filter, incident, noun: selectsAll ? 'events' : 'matching events',
    minSupport: Math.max(MIN_SUPPORT_ABS, Math.ceil(MIN_SUPPORT_SHARE * nA)),
  };
  const everBefore = all ? everBeforeOf(all, allGroups) : new Map<string, number>();
  const singles = fieldValueTests(vc, groups, scope, everBefore);
  const tested: Tested[] = [...singles, ...pairTests(vc, groups, singles, scope)];
  for (const { p, a, b, filter: f } of patternCounts) {
    const t = shareTest(a, nA, b, nB, scope.minSupport);
    if (!t) continue;
    tested.push({
      log10p: t.log10p, excess: t.excess, baselineCount: b,
      hypothesis: {
        kind: 'pattern', pattern: p.pattern, incident_share: t.shareA, baseline_share: t.shareB, count: a,
        summary: b === 0
          ? `new message template "${p.pattern}" is on ${pct(t.shareA)} of ${scope.noun} (${countText(a)}), never seen before`
          : `message template "${p.pattern}" is on ${pct(t.shareA)} of ${scope.noun} (${countText(a)}) vs ${pct(t.shareB)} before`,
        query: andFilters(f, timeFilter(incident.startMs, incident.endMs)),
      },
    });
  }
  const services = all ?? vc;
  const serviceGroup = (all ? allGroups : groups).findIndex((g) => g.length === 2 && g[0] === 'service' && g[1] === 'severity');
  if (serviceGroup >= 0) tested.push(...serviceTests(services, serviceGroup, incident));
  return result(rank(tested), nA, nB);
}

/** The incident window and its baseline (default: the same length just before), or a 400 naming what is wrong. */
function windows(req: RcaRequest): { incident: Window; baseline: Window } {
  if (!Number.isFinite(req.startMs) || !Number.isFinite(req.endMs) || req.endMs <= req.startMs) {
    throw errors.badRequest('end must be after start');
  }
  const len = req.endMs - req.startMs;
  const baseline = { startMs: req.baselineStartMs ?? req.startMs - len, endMs: req.baselineEndMs ?? req.startMs };
  if (!Number.isFinite(baseline.startMs) || !Number.isFinite(baseline.endMs) || baseline.endMs <= baseline.startMs) {
    throw errors.badRequest('baseline_end must be after baseline_start');
  }
  return { incident: { startMs: req.startMs, endMs: req.endMs }, baseline };
}

/** Every discovered field alone, every pair of the pairable ones, and service × severity when the query selects all. */
function groupsOf(fields: Fields, selectsAll: boolean): string[][] {
  const groups = fields.singles.map((f) => [f]);
  const p = fields.pairable;
  for (let i = 0; i < p.length; i++) for (let j = i + 1; j < p.length; j++) groups.push([p[i] ?? '', p[j] ?? '']);
  if (selectsAll && !groups.some((g) => g.length === 2 && g[0] === 'service' && g[1] === 'severity')) groups.push(['service', 'severity']);
  return groups;
}
