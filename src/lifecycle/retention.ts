// Retention (DESIGN §6): once per UTC day of service time, each tenant's telemetry older than its
// tier's retention is dropped. Checked every few minutes, so a jump of the test clock is noticed.
import type { Clock } from '../clock.js';
import { utcDay } from '../clock.js';
import type { ControlStore } from '../stores/control/control-store.js';
import type { TelemetryStore } from '../stores/telemetry/telemetry-store.js';
import { effectivePlan } from '../limits/plans.js';
import { msToNs } from '../model/time.js';

const CHECK_EVERY_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

export interface RetentionResult {
  tenantId: string;
  retentionDays: number;
  deletedRows: number;
}

export class RetentionJob {
  private lastDay = '';
  private running: Promise<RetentionResult[]> | null = null;

  constructor(
    private readonly control: ControlStore,
    private readonly telemetry: TelemetryStore,
    private readonly clock: Clock,
    private readonly log: (msg: string) => void,
  ) {}

  /** Starts the periodic check; the returned timer is the caller's to clear. */
  schedule(): NodeJS.Timeout {
    const timer = setInterval(() => void this.runIfNewDay(), CHECK_EVERY_MS);
    timer.unref();
    return timer;
  }

  async runIfNewDay(): Promise<RetentionResult[]> {
    const day = utcDay(this.clock.now());
    if (day === this.lastDay) return [];
    this.lastDay = day;
    return this.runNow();
  }

  /** One pass over every tenant now (also what the daily check calls). */
  runNow(): Promise<RetentionResult[]> {
    this.running ??= this.pass().finally(() => { this.running = null; });
    return this.running;
  }

  private async pass(): Promise<RetentionResult[]> {
    const results: RetentionResult[] = [];
    const now = this.clock.now();
    try {
      for (const account of await this.control.listAccounts()) {
        const days = effectivePlan(account).retentionDays;
        if (!Number.isFinite(days)) continue;
        for (const tenant of await this.control.listTenants(account.id)) {
          const deletedRows = await this.telemetry.deleteOlderThan(tenant.id, msToNs(now - days * DAY_MS));
          results.push({ tenantId: tenant.id, retentionDays: days, deletedRows });
        }
      }
      const total = results.reduce((n, r) => n + r.deletedRows, 0);
      if (total > 0) this.log(`retention: dropped ${total} rows past their tier's retention`);
    } catch (e) {
      this.log(`retention failed: ${String(e)}`);
    }
    return results;
  }
}
