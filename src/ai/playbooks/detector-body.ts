// A playbook's bound → the JSON body POST …/tenants/<t>/detectors takes (DESIGN §8), so a detector a runbook states
// goes through exactly the checks a hand-made one does (detectors-api.ts detectorChecks: readDetectorBody, the
// channels, checkEligible). The detector carries the label `playbook: <id>` and the annotations `playbook` (its
// title) and `playbook_url`, so each of its alerts links back to the playbook (DESIGN §9, issue 10 item 4).
import { durationText } from '../../detectors/kinds/params.js';
import { parseDurationMs } from '../../query/promql/literals.js';
import type { Bound, StepAlert } from './model.js';

export interface DetectorOrigin {
  playbookId: string;
  playbookTitle: string;
  stepTitle: string;
  /** Where the web app shows the playbook. */
  playbookUrl: string;
}

const MAX_NAME = 256;
const MAX_TEXT = 4096;
/** A window when the sentence states none: the detector default's own (detector-body.ts detectorDefaults). */
const DEFAULT_WINDOW_S = 300;

const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
/** Annotation text is a template (engine/templates.ts): the runbook's own words must not open an action. */
const literal = (s: string): string => s.replace(/\{\{/g, '{ {').replace(/\}\}/g, '} }');

/**
 * A leading or trailing `_time:<duration>` of a LogsQL filter: a detector's window sets its range (log_threshold
 * refuses `_time`), so the duration becomes the window and the rest the query.
 */
export function splitTimeFilter(query: string): { query: string; window_s?: number } {
  const m = /(^|\s)_time:(\d[\w.]*)(?=\s|$)/.exec(query);
  const ms = m?.[2] === undefined ? undefined : parseDurationMs(m[2]);
  if (!m || ms === undefined || ms <= 0) return { query };
  const rest = (query.slice(0, m.index) + ' ' + query.slice(m.index + m[0].length)).trim();
  return { query: rest === '' ? '*' : rest, window_s: Math.round(ms / 1000) };
}

function paramsOf(b: Bound): { params: Record<string, unknown>; window_s: number | undefined; for_s: number | undefined } {
  const t = b.target;
  switch (t.kind) {
    case 'log_threshold': {
      const { query, window_s } = splitTimeFilter(t.query);
      return { params: { query, op: b.op, threshold: b.threshold }, window_s: b.window_s ?? window_s, for_s: b.for_s };
    }
    case 'metric_threshold':
      return { params: { expr: t.expr, op: b.op, threshold: b.threshold }, window_s: b.window_s, for_s: b.for_s };
    case 'error_ratio': {
      // One window pair with burn factor 1 and an SLO of 1 − bound: burn = ratio / (1 − slo) > 1 exactly when the
      // error ratio passes the bound over the window and over its last twelfth (the SRE Workbook's short window).
      const longS = b.window_s ?? DEFAULT_WINDOW_S;
      const shortS = Math.max(10, Math.round(longS / 12));
      return {
        params: {
          errors_query: t.errorsQuery, total_query: t.totalQuery, slo: Number((1 - b.threshold).toFixed(6)),
          windows: [`${durationText(longS * 1000)}:${durationText(shortS * 1000)}:1`],
        },
        window_s: longS, for_s: b.for_s,
      };
    }
    case 'trace_latency':
      return {
        params: { ...(t.service === undefined ? {} : { service: t.service }), quantile: t.quantile, threshold_ms: b.threshold },
        window_s: b.window_s, for_s: b.for_s,
      };
    case 'absence':
      // "no logs from payments for 15 minutes": the 15 minutes are the silent window, not a `for`.
      return { params: { query: t.query }, window_s: b.window_s ?? b.for_s ?? DEFAULT_WINDOW_S, for_s: b.window_s === undefined ? undefined : b.for_s };
  }
}

/** The POST …/detectors body of one bound sentence of a playbook step. */
export function playbookDetectorBody(alert: StepAlert & { bound: Bound }, origin: DetectorOrigin): Record<string, unknown> {
  const { params, window_s, for_s } = paramsOf(alert.bound);
  const body: Record<string, unknown> = {
    name: clip(`${origin.playbookTitle}: ${origin.stepTitle}`, MAX_NAME),
    kind: alert.bound.target.kind,
    params,
    labels: { playbook: origin.playbookId },
    annotations: {
      summary: clip(`${literal(alert.sentence)} (value {{ $value }})`, MAX_TEXT),
      description: clip(literal(`From the playbook "${origin.playbookTitle}", step "${origin.stepTitle}".`), MAX_TEXT),
      playbook: clip(literal(origin.playbookTitle), MAX_TEXT),
      playbook_url: origin.playbookUrl,
    },
  };
  if (window_s !== undefined) body.window_s = Math.max(10, window_s);
  if (for_s !== undefined) body.for_s = for_s;
  return body;
}
