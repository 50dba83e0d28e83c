// A tenant's threshold detectors → a rule file (DESIGN §8 "Rule files"), the inverse of convert.ts: each enabled
// `metric_threshold` is a Prometheus alerting rule and each enabled `log_threshold` a vmalert `type: vlogs` rule,
// grouped by evaluation interval. `type=prometheus` gives a file Prometheus (and `promtool check rules`) takes;
// `type=vlogs` one for vmalert with VictoriaLogs; neither gives both in one vmalert file. A recovery threshold
// (hysteresis) has no rule-file spelling and is left as a comment; other kinds and disabled detectors are counted
// in the header comment.
import { Document, type YAMLMap } from 'yaml';
import type { Detector } from '../../stores/control/detector-records.js';
import { durationText } from '../kinds/params.js';
import { needsParens, splitVlogsQuery } from './convert.js';

export type ExportType = 'prometheus' | 'vlogs' | 'all';

interface ExportRule {
  alert: string;
  expr: string;
  for?: string;
  keep_firing_for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** A LogsQL field name, quoted unless it is a plain word (`errors`, `k8s.pod`). */
function field(name: string): string {
  return /^[A-Za-z_][\w.]*$/.test(name) ? name : JSON.stringify(name);
}

function promqlExpr(d: Detector): string | null {
  const expr = str(d.params.expr);
  if (expr === undefined) return null;
  const op = str(d.params.op);
  const threshold = num(d.params.threshold);
  if (threshold === undefined || op === undefined) return expr;
  return `${needsParens(expr) ? `(${expr})` : expr} ${op} ${String(threshold)}`;
}

function vlogsExpr(d: Detector): string | null {
  const query = str(d.params.query);
  const column = str(d.params.column);
  const op = str(d.params.op);
  const threshold = num(d.params.threshold);
  if (query === undefined || column === undefined || op === undefined || threshold === undefined) return null;
  const cmp = op === '==' ? `${field(column)}:=${String(threshold)}`
    : op === '!=' ? `-${field(column)}:=${String(threshold)}` : `${field(column)}:${op}${String(threshold)}`;
  // vmalert's window is the group interval; a detector with another window says it with a leading _time filter.
  const withWindow = d.windowS === d.intervalS ? query : `_time:${durationText(d.windowS * 1000)} ${query}`;
  const expr = `${withWindow} | filter ${cmp}`;
  // What convert.ts would read back: refuse to write what would not come back as this detector.
  const back = splitVlogsQuery(expr);
  return typeof back === 'string' || back.column !== column || back.threshold !== threshold ? null : expr;
}

function rule(d: Detector, expr: string): ExportRule {
  const r: ExportRule = { alert: d.name, expr };
  if (d.forS > 0) r.for = durationText(d.forS * 1000);
  if (d.keepFiringForS > 0) r.keep_firing_for = durationText(d.keepFiringForS * 1000);
  if (Object.keys(d.labels).length > 0) r.labels = d.labels;
  if (Object.keys(d.annotations).length > 0) r.annotations = d.annotations;
  return r;
}

interface Group { name: string; type: 'prometheus' | 'vlogs'; interval: string; rules: { rule: ExportRule; note?: string }[] }

/** The rule file as YAML text, with a header comment naming what it leaves out. */
export function exportRuleFile(detectors: readonly Detector[], type: ExportType, header: string): string {
  const groups = new Map<string, Group>();
  let left = 0;
  for (const d of detectors) {
    const kindType = d.kind === 'metric_threshold' ? 'prometheus' : d.kind === 'log_threshold' ? 'vlogs' : null;
    if (!d.enabled || kindType === null || (type !== 'all' && type !== kindType)) {
      left++;
      continue;
    }
    const expr = kindType === 'prometheus' ? promqlExpr(d) : vlogsExpr(d);
    if (expr === null) {
      left++;
      continue;
    }
    const interval = durationText(d.intervalS * 1000);
    const key = `${kindType}/${interval}`;
    let g = groups.get(key);
    if (!g) {
      g = { name: `sightline-${kindType === 'prometheus' ? 'metrics' : 'logs'}-${interval}`, type: kindType, interval, rules: [] };
      groups.set(key, g);
    }
    const recovery = num(d.params.recovery);
    g.rules.push({
      rule: rule(d, expr),
      ...(recovery === undefined ? {} : { note: ` recovery_threshold ${String(recovery)} (hysteresis) has no rule-file spelling` }),
    });
  }
  const doc = new Document({
    groups: [...groups.values()].map((g) => ({
      name: g.name, ...(g.type === 'vlogs' ? { type: 'vlogs' } : {}), interval: g.interval, rules: g.rules.map((r) => r.rule),
    })),
  });
  // Notes go above their rule as YAML comments.
  [...groups.values()].forEach((g, gi) => g.rules.forEach((r, ri) => {
    if (r.note === undefined) return;
    const node = doc.getIn(['groups', gi, 'rules', ri], true) as YAMLMap | undefined;
    if (node) node.commentBefore = r.note;
  }));
  doc.commentBefore = ` ${header}${left > 0 ? `\n ${left} detector(s) left out: other kinds, disabled, or not of this type` : ''}`;
  return doc.toString({ lineWidth: 0 });
}
