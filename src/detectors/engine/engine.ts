// The detector engine (DESIGN §8): evaluates every enabled detector on its schedule (scheduler.ts) and in full
// passes on demand (POST /admin/v1/detectors/evaluate), on service time, against each tenant's data and query rate.
// Detectors keep evaluating whatever the account's tier — trial_expired included (spec "Plans": detectors keep
// running on existing data and alerts keep firing); only the query rate bounds them.
import type { Clock } from '../../clock.js';
import type { Account, ControlStore } from '../../stores/control/control-store.js';
import type { Detector } from '../../stores/control/detector-records.js';
import type { TelemetryStore } from '../../stores/telemetry/telemetry-store.js';
import type { DetectorKind } from '../model.js';
import type { Notifier } from '../notify-model.js';
import { EvaluationDeferred, StoreDetectorData, type QueryGate } from './data.js';
import { evaluateDetector, retireDetectorAlerts, type EvaluationReport, type EvaluatorDeps } from './evaluate.js';
import { previewDetector, type PreviewResult } from './preview.js';
import { EngineMetrics } from './metrics.js';
import { DetectorScheduler } from './scheduler.js';

/** One query of the tenant's rate: ok, or how long until one frees up (limits/query-rate.ts). */
export type QueryRateCheck = (tenantId: string, account: Account) => { ok: true } | { ok: false; retryAfterS: number; limitPerMin: number };

export interface EngineOptions {
  control: ControlStore;
  telemetry: TelemetryStore;
  kinds: ReadonlyMap<string, DetectorKind>;
  notifier: Notifier;
  /** Service time (DESIGN §3). */
  clock: Clock;
  /** SIGHTLINE_EVAL_INTERVAL_MS; 0 = no scheduled evaluation (passes on demand only). */
  intervalMs: number;
  queryRate: QueryRateCheck;
  /** The app's base URL for links back to an alert (Alertmanager generatorURL); known once the service listens. */
  appUrl(): string;
  log(line: string): void;
  /** Evaluations in flight at once, in a pass and in the scheduler. */
  concurrency?: number;
}

export interface PassFilter {
  tenantId?: string;
  detectorId?: string;
}

export interface PassReport {
  evaluated: number;
  /** Alerts firing after the pass, over the detectors it evaluated. */
  firing: number;
  /** Alerts that resolved during the pass. */
  resolved: number;
  pending: number;
  /** Evaluations that failed (their alerts show `error`). */
  errors: number;
  /** Evaluations deferred because the tenant's query rate was spent. */
  deferred: number;
}

const wall: Clock = { now: () => performance.now() };

export class DetectorEngine {
  readonly metrics = new EngineMetrics();
  private readonly scheduler: DetectorScheduler | null;
  private readonly deps: EvaluatorDeps;

  constructor(private readonly o: EngineOptions) {
    this.deps = {
      control: o.control, kinds: o.kinds, notifier: o.notifier, clock: wall, metrics: this.metrics,
      dataFor: (d) => this.dataFor(d),
      generatorUrl: (d, fp) => `${o.appUrl()}/app/alerts?detector=${encodeURIComponent(d.id)}&fingerprint=${fp}`,
    };
    this.scheduler = o.intervalMs > 0
      ? new DetectorScheduler({
        clock: o.clock, intervalMs: o.intervalMs, log: (line) => { o.log(line); }, concurrency: o.concurrency ?? 4,
        listDetectors: () => o.control.listEnabledDetectors(),
        evaluate: (d, atMs) => this.evaluate(d, atMs),
      })
      : null;
  }

  /** The data a detector reads: its tenant's, each query taken from the tenant's query rate. */
  async dataFor(d: Pick<Detector, 'tenantId' | 'accountId'>): Promise<StoreDetectorData> {
    // The account is read fresh per evaluation: a tier change (trial_expired's lower query rate) applies at once.
    const account = await this.o.control.getAccount(d.accountId);
    const gate: QueryGate = () => {
      if (!account) throw new Error(`account ${d.accountId} not found`);
      const v = this.o.queryRate(d.tenantId, account);
      if (!v.ok) throw new EvaluationDeferred(v.retryAfterS, v.limitPerMin);
    };
    return new StoreDetectorData(this.o.telemetry, d.tenantId, gate, this.o.clock);
  }

  /** Inside the caller's detector transaction: resolve the detector's firing alerts (with notices), drop the rest. */
  async retireAlerts(tx: ControlStore, d: Detector, reason: string): Promise<number> {
    const n = await retireDetectorAlerts(this.deps, tx, d, reason, this.o.clock.now());
    this.metrics.noticesEnqueued('resolved', n);
    return n;
  }

  /** What the detector would have done at successive instants of a past range (nothing recorded or sent). */
  async preview(d: Detector, range: { startMs: number; endMs: number; stepMs: number }): Promise<PreviewResult & { queries: number }> {
    const data = await this.dataFor(d);
    const result = await previewDetector(d, this.o.kinds.get(d.kind), data, range);
    return { ...result, queries: data.queries.length };
  }

  evaluate(d: Detector, atMs: number): Promise<EvaluationReport> {
    return evaluateDetector(this.deps, d, atMs);
  }

  /** Every enabled detector (of the filter) evaluated now, a few at a time. */
  async runPass(filter: PassFilter = {}): Promise<PassReport> {
    const started = performance.now();
    // A whole second: passes asked for right after a move of the test clock judge exactly the instant it was set to.
    const atMs = Math.floor(this.o.clock.now() / 1000) * 1000;
    const all = await this.o.control.listEnabledDetectors();
    const todo = all.filter((d) => (filter.tenantId === undefined || d.tenantId === filter.tenantId)
      && (filter.detectorId === undefined || d.id === filter.detectorId));
    const reports: EvaluationReport[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let d = todo[next++]; d !== undefined; d = todo[next++]) {
        try {
          reports.push(await this.evaluate(d, atMs));
        } catch (e) {
          this.o.log(`detector ${d.id}: evaluation failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.o.concurrency ?? 4) }, worker));
    const ran = reports.filter((r) => !r.skipped);
    const sum = (f: (r: EvaluationReport) => number): number => ran.reduce((n, r) => n + f(r), 0);
    const report: PassReport = {
      evaluated: ran.length, firing: sum((r) => r.firing), resolved: sum((r) => r.resolved), pending: sum((r) => r.pending),
      errors: ran.filter((r) => r.outcome === 'error').length, deferred: ran.filter((r) => r.outcome === 'deferred').length,
    };
    this.metrics.pass((performance.now() - started) / 1000, report.evaluated);
    return report;
  }

  start(): void {
    this.scheduler?.start();
  }

  /** A detector was created, changed or deleted: the scheduler reloads its list at the next look. */
  refresh(): void {
    this.scheduler?.refresh();
  }

  stop(): Promise<void> {
    return this.scheduler?.stop() ?? Promise.resolve();
  }
}
