// What the detector engine adds to the app plane's /metrics (issue 9 item 8), in the Prometheus text format:
// evaluations by outcome, their duration as a histogram, failures by reason, notices handed to the notifier by
// status, and the last pass. In memory, per process; a restart starts the counters again (Prometheus' rate()
// handles the reset).

/** Upper bounds of the duration histogram, seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

export type EvaluationOutcome = 'ok' | 'error' | 'deferred';

export class EngineMetrics {
  private readonly outcomes: Record<EvaluationOutcome, number> = { ok: 0, error: 0, deferred: 0 };
  private readonly buckets = BUCKETS.map(() => 0);
  private durationSum = 0;
  private durationCount = 0;
  private readonly notices = { firing: 0, resolved: 0 };
  private lastPass: { seconds: number; evaluated: number } | null = null;

  evaluation(outcome: EvaluationOutcome, seconds: number): void {
    this.outcomes[outcome]++;
    this.durationSum += seconds;
    this.durationCount++;
    BUCKETS.forEach((le, i) => { if (seconds <= le) this.buckets[i] = (this.buckets[i] ?? 0) + 1; });
  }

  noticesEnqueued(status: 'firing' | 'resolved', n: number): void {
    this.notices[status] += n;
  }

  pass(seconds: number, evaluated: number): void {
    this.lastPass = { seconds, evaluated };
  }

  render(): string {
    const lines: string[] = [
      '# HELP sightline_detector_evaluations_total Detector evaluations, by outcome (deferred: the tenant\'s query rate was spent).',
      '# TYPE sightline_detector_evaluations_total counter',
      ...(['ok', 'error', 'deferred'] as const).map((o) => `sightline_detector_evaluations_total{outcome="${o}"} ${this.outcomes[o]}`),
      '# HELP sightline_detector_evaluation_failures_total Detector evaluations that failed or were deferred, by reason.',
      '# TYPE sightline_detector_evaluation_failures_total counter',
      `sightline_detector_evaluation_failures_total{reason="query_rate"} ${this.outcomes.deferred}`,
      `sightline_detector_evaluation_failures_total{reason="error"} ${this.outcomes.error}`,
      '# HELP sightline_detector_evaluation_duration_seconds Time one detector evaluation took, queries and the alert transaction.',
      '# TYPE sightline_detector_evaluation_duration_seconds histogram',
      ...BUCKETS.map((le, i) => `sightline_detector_evaluation_duration_seconds_bucket{le="${le}"} ${this.buckets[i] ?? 0}`),
      `sightline_detector_evaluation_duration_seconds_bucket{le="+Inf"} ${this.durationCount}`,
      `sightline_detector_evaluation_duration_seconds_sum ${this.durationSum}`,
      `sightline_detector_evaluation_duration_seconds_count ${this.durationCount}`,
      '# HELP sightline_alert_notices_enqueued_total Alert notices handed to the notifier, by status.',
      '# TYPE sightline_alert_notices_enqueued_total counter',
      `sightline_alert_notices_enqueued_total{status="firing"} ${this.notices.firing}`,
      `sightline_alert_notices_enqueued_total{status="resolved"} ${this.notices.resolved}`,
    ];
    if (this.lastPass) {
      lines.push(
        '# HELP sightline_detector_last_pass_seconds Duration of the last full pass (POST /admin/v1/detectors/evaluate).',
        '# TYPE sightline_detector_last_pass_seconds gauge',
        `sightline_detector_last_pass_seconds ${this.lastPass.seconds}`,
        '# HELP sightline_detector_last_pass_evaluated Detectors evaluated by the last full pass.',
        '# TYPE sightline_detector_last_pass_evaluated gauge',
        `sightline_detector_last_pass_evaluated ${this.lastPass.evaluated}`,
      );
    }
    return `${lines.join('\n')}\n`;
  }
}
