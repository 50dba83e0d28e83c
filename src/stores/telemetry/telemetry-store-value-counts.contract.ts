// The read RCA adds to the telemetry store (DESIGN §9 `ai/rca`, issue 10 item 1): exact counts of field values and
// value pairs in several ranges, for the entries a LogsQL filter selects. Registered by telemetry-store.contract.ts
// inside its suite, so every backend runs it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLogsql } from '../../query/logsql/parser.js';
import type { TelemetryStore, ValueCount } from './telemetry-store.js';
import { log, logsBatch } from './telemetry-store.contract.js';

type WithStore = (fn: (s: TelemetryStore) => Promise<void>) => Promise<void>;

const MS = 1_000_000n;
const T0 = 1_700_000_000_000n * MS;

const sorted = (vs: ValueCount[]) => [...vs].sort((a, b) => a.group - b.group || a.values.join().localeCompare(b.values.join()));

export function valueCountsContract(withStore: WithStore): void {
  void test('logValueCounts: values and pairs per range, empty values left out, minCount on the first range', () => withStore(async (s) => {
    const at = (i: number, service: string, severity: string, fields: Record<string, string>) =>
      log({ timeNs: T0 + BigInt(i) * MS, service, severity, fields });
    await s.write([
      logsBatch('t1', [
        // Range 0: [T0, T0 + 10 ms)
        at(0, 'api', 'error', { version: '2', 'k8s.pod': 'a' }),
        at(1, 'api', 'error', { version: '2', 'k8s.pod': 'b' }),
        at(2, 'api', 'info', { version: '2', 'k8s.pod': 'a' }),
        at(3, 'db', 'error', { version: '1', 'k8s.pod': '' }),
        // Range 1: [T0 + 10 ms, T0 + 20 ms)
        at(10, 'api', 'info', { version: '1', 'k8s.pod': 'a' }),
        at(11, 'db', 'error', { version: '1' }),
        at(30, 'api', 'error', { version: '9' }), // in neither range
      ]),
      logsBatch('t2', [at(0, 'api', 'error', { version: '2' })]),
    ], 1n);
    const ranges = [{ startNs: T0, endNs: T0 + 10n * MS }, { startNs: T0 + 10n * MS, endNs: T0 + 20n * MS }];
    const groups = [['version'], ['service'], ['level', 'version'], ['k8s.pod']];
    const r = await s.logValueCounts('t1', parseLogsql('*', T0), { ranges, groups, minCount: 1 });
    assert.deepEqual(r.totals, [4, 2]);
    assert.deepEqual(sorted(r.values), [
      { group: 0, values: ['1'], counts: [1, 2] },
      { group: 0, values: ['2'], counts: [3, 0] },
      { group: 1, values: ['api'], counts: [3, 1] },
      { group: 1, values: ['db'], counts: [1, 1] },
      { group: 2, values: ['error', '1'], counts: [1, 1] },
      { group: 2, values: ['error', '2'], counts: [2, 0] },
      { group: 2, values: ['info', '2'], counts: [1, 0] },
      { group: 3, values: ['a'], counts: [2, 1] },
      { group: 3, values: ['b'], counts: [1, 0] },
    ]);

    const errors = await s.logValueCounts('t1', parseLogsql('level:error | limit 1', T0), { ranges, groups: [['version']], minCount: 2 });
    assert.deepEqual(errors.totals, [3, 1], 'the filter applies, its pipes do not');
    assert.deepEqual(errors.values, [{ group: 0, values: ['2'], counts: [2, 0] }], 'version 1 has one entry in range 0');

    const overlapping = await s.logValueCounts('t1', parseLogsql('*', T0), { ranges: [{}, ranges[0] ?? {}], groups: [['service']], minCount: 1 });
    assert.deepEqual(overlapping.totals, [7, 4], 'an unbounded range counts every entry; ranges may overlap');
    assert.deepEqual((await s.logValueCounts('t3', parseLogsql('*', T0), { ranges, groups, minCount: 1 })), { totals: [0, 0], values: [] });
  }));
}
