// Membership (DESIGN §10): N is the live processes of this role as the last beat saw them, never below 1; a failed
// beat keeps N; a change of N is logged once; stop leaves the cluster.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterStore, LiveProcesses } from '../stores/control/cluster-records.js';
import { Membership } from './membership.js';

type BeatStore = Pick<ClusterStore, 'heartbeat' | 'leaveCluster'>;

class FakeStore implements BeatStore {
  live: LiveProcesses = { ingest: 1, app: 0 };
  fail = false;
  beats = 0;
  left: string[] = [];
  pending: (() => void)[] = [];
  hold = false;

  async heartbeat(): Promise<LiveProcesses> {
    this.beats++;
    if (this.hold) await new Promise<void>((r) => this.pending.push(r));
    if (this.fail) throw new Error('connection refused');
    return this.live;
  }

  leaveCluster(processId: string): Promise<void> {
    this.left.push(processId);
    return Promise.resolve();
  }
}

const started = async (store: FakeStore, lines: string[] = []): Promise<Membership> => {
  const m = new Membership(store, 'ingest', { everyMs: 3_600_000, log: (l) => lines.push(l) });
  await m.start();
  return m;
};

void test('the share is the live processes of the role after the first beat, and never below 1', async () => {
  const store = new FakeStore();
  store.live = { ingest: 3, app: 7 };
  const m = await started(store);
  assert.equal(m.share(), 3);
  store.live = { ingest: 0, app: 2 };
  await m.beat();
  assert.equal(m.share(), 1);
  await m.stop();
});

void test('each change of N is logged once; a failed beat keeps N and is logged once', async () => {
  const store = new FakeStore();
  const lines: string[] = [];
  const m = await started(store, lines);
  store.live = { ingest: 2, app: 0 };
  await m.beat();
  await m.beat();
  store.fail = true;
  await m.beat();
  await m.beat();
  assert.equal(m.share(), 2);
  store.fail = false;
  await m.beat();
  assert.equal(lines.length, 4, lines.join('\n'));
  assert.match(lines[0] ?? '', /^cluster: 1 live ingest process/);
  assert.match(lines[1] ?? '', /^cluster: 2 live ingest process/);
  assert.match(lines[2] ?? '', /^cluster: heartbeat failed, keeping 2 live ingest/);
  assert.match(lines[3] ?? '', /^cluster: heartbeats reach the control store again/);
  await m.stop();
});

void test('beats never overlap; stop waits for the beat in flight and leaves with this process id', async () => {
  const store = new FakeStore();
  const m = await started(store);
  store.hold = true;
  const a = m.beat();
  const b = m.beat();
  assert.equal(store.beats, 2, 'the start beat and one more, not two more');
  const stopped = m.stop();
  for (const release of store.pending) release();
  await Promise.all([a, b, stopped]);
  assert.deepEqual(store.left, [m.processId]);
});
