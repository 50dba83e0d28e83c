// Retention over the real stores (PGlite control store, DuckDB telemetry) with an injected clock:
// each tenant keeps exactly its tier's retention (DESIGN §6), and the daily check runs once per UTC day.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../clock.js';
import { openControlStore } from '../stores/control/open-control-store.js';
import { openDuckdbStore, type DuckdbTelemetryStore } from '../stores/telemetry/duckdb/duckdb-store.js';
import type { ControlStore, Tier } from '../stores/control/control-store.js';
import { RetentionJob } from './retention.js';
import { msToNs } from '../model/time.js';
import type { LogEntry } from '../model/log-entry.js';

const DAY = 86_400_000;
const entry = (timeMs: number, msg: string): LogEntry => ({
  timeNs: msToNs(timeMs), observedNs: msToNs(timeMs), service: 's', severity: '', msg, traceId: '', spanId: '', stream: '', fields: {},
});

void describe('retention', () => {
  let dir = '';
  let control: ControlStore;
  let telemetry: DuckdbTelemetryStore;
  const clock = new ManualClock(Date.UTC(2026, 5, 30, 12));
  let position = 0n;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sightline-retention-'));
    control = await openControlStore({ dataDir: dir, clock });
    telemetry = await openDuckdbStore(':memory:');
  });
  after(async () => {
    await telemetry.close();
    await control.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function tenantOn(tier: Tier, ages: number[]): Promise<string> {
    const account = await control.createAccount({ name: tier, tier, signupAt: clock.now() - 60 * DAY, trialEndsAt: null });
    const tenant = await control.createTenant({ accountId: account.id, name: tier });
    const logs = ages.map((days) => entry(clock.now() - days * DAY, `${tier} ${days}d`));
    await telemetry.write([{ tenantId: tenant.id, format: 'native', batch: { logs, spans: [] } }], ++position);
    return tenant.id;
  }
  const messages = async (tenantId: string) => (await telemetry.searchLogs(tenantId, { filter: { kind: 'all' }, pipes: [] }, {}, 100))
    .map((r) => String(r._msg)).sort();

  void it('drops each tenant\'s rows older than its tier\'s retention, and nothing younger', async () => {
    const trial = await tenantOn('trial', [1, 13, 15, 40]); // 14 days
    const team = await tenantOn('team', [1, 15, 29, 31]); // 30 days
    const custom = await tenantOn('custom', [31, 89, 91]); // 90 days
    const job = new RetentionJob(control, telemetry, clock, () => undefined);
    await job.runNow();
    assert.deepEqual(await messages(trial), ['trial 13d', 'trial 1d']);
    assert.deepEqual(await messages(team), ['team 15d', 'team 1d', 'team 29d']);
    assert.deepEqual(await messages(custom), ['custom 31d', 'custom 89d']);
  });

  void it('the daily check runs once per UTC day of service time', async () => {
    const team = await tenantOn('team', [25]);
    const job = new RetentionJob(control, telemetry, clock, () => undefined);
    assert.ok((await job.runIfNewDay()).length > 0, 'the first check of a day runs');
    assert.deepEqual(await job.runIfNewDay(), [], 'a second check the same day does nothing');
    clock.advance(6 * DAY);
    await job.runIfNewDay();
    assert.deepEqual(await messages(team), [], 'six days later the 25-day-old row is past 30 days');
  });
});
