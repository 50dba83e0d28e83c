// The AI ledger over the real control store (PGlite): charges, refusals, the 00:00 UTC reset, and
// durability across a restart, all on an injected clock.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../clock.js';
import { openControlStore } from '../stores/control/open-control-store.js';
import type { Account, ControlStore, Tier } from '../stores/control/control-store.js';
import { Metering } from './metering.js';
import { AiLedger } from './ai-ledger.js';
import { ServiceError } from '../errors.js';

const refusal = (status: number, detail: RegExp) => (e: unknown) => e instanceof ServiceError && e.status === status && detail.test(e.detail);

void describe('AI credit ledger', () => {
  let dir = '';
  let store: ControlStore;
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  const newAccount = (tier: Tier): Promise<Account> =>
    store.createAccount({ name: `ai-${tier}`, tier, signupAt: clock.now(), trialEndsAt: null });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sightline-ai-'));
    store = await openControlStore({ dataDir: dir, clock });
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  void it('charges the call costs and refuses past the sub-cap and the daily total with a quota 429', async () => {
    const ledger = new AiLedger(new Metering(store, clock, () => undefined), clock);
    const team = await newAccount('team'); // 200 credits, deep RCA 40, playbook import 20
    for (let i = 0; i < 4; i++) await ledger.charge(team, 'deep_rca');
    await assert.rejects(ledger.charge(team, 'deep_rca'), refusal(429, /quota/));
    for (let i = 0; i < 4; i++) await ledger.charge(team, 'playbook_import');
    await assert.rejects(ledger.charge(team, 'playbook_import'), refusal(429, /quota/));
    assert.deepEqual(await ledger.spentToday(team), { total: 60, deepRca: 40, playbookImport: 20 });
    for (let i = 0; i < 70; i++) await ledger.charge(team, 'rca_hypotheses');
    await assert.rejects(ledger.charge(team, 'nl_query'), refusal(429, /quota/));
    assert.equal((await ledger.spentToday(team)).total, 200);
  });

  void it('a tier without AI is refused with 403 "not available on your plan"', async () => {
    const ledger = new AiLedger(new Metering(store, clock, () => undefined), clock);
    await assert.rejects(ledger.charge(await newAccount('trial_expired'), 'nl_query'), refusal(403, /not available on your plan/));
  });

  void it('credits reset at 00:00 UTC and survive a restart', async () => {
    const metering = new Metering(store, clock, () => undefined);
    const ledger = new AiLedger(metering, clock);
    const growth = await newAccount('growth');
    await ledger.charge(growth, 'deep_rca');
    await metering.stop(); // flushes, as SIGTERM does
    const restarted = new AiLedger(new Metering(store, clock, () => undefined), clock);
    assert.equal((await restarted.spentToday(growth)).total, 10);
    clock.set(Date.UTC(2026, 5, 2, 0, 0, 1));
    assert.equal((await restarted.spentToday(growth)).total, 0);
    await restarted.charge(growth, 'nl_query');
    assert.equal((await restarted.spentToday(growth)).total, 1);
  });

  void it('a refund gives back exactly what the charge drew, to the day it was drawn from, durably', async () => {
    const metering = new Metering(store, clock, () => undefined);
    const ledger = new AiLedger(metering, clock);
    const team = await newAccount('team');
    await ledger.charge(team, 'nl_query');
    const receipt = await ledger.charge(team, 'deep_rca');
    assert.deepEqual(receipt.spent, { total: 11, deepRca: 10, playbookImport: 0 });
    assert.deepEqual(ledger.refund(receipt), { total: 1, deepRca: 0, playbookImport: 0 });
    // The refunded credits can be spent again: four deep analyses fit the 40 sub-cap, a fifth does not.
    for (let i = 0; i < 4; i++) await ledger.charge(team, 'deep_rca');
    await assert.rejects(ledger.charge(team, 'deep_rca'), refusal(429, /quota/));
    await metering.stop();
    const restarted = new AiLedger(new Metering(store, clock, () => undefined), clock);
    assert.deepEqual(await restarted.spentToday(team), { total: 41, deepRca: 40, playbookImport: 0 });
  });
});
