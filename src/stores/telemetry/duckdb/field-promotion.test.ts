// Which keys a write promotes (field-promotion.ts), and when the writer may fill a new column (field-layout.ts).
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import type { FieldValue } from '../../../model/log-entry.js';
import { log, logsBatch } from '../telemetry-store.contract.js';
import { keysToPromote } from './field-promotion.js';
import { pickAtRandom } from '../../../model/batch.js';
import { nativeLogWindows } from '../../../ingest/formats/native.js';
import { FieldLayout } from './field-layout.js';

const policy = { minRows: 100, maxColumns: 8 };

function rows(n: number, fields: (i: number) => Record<string, FieldValue>) {
  return logsBatch('t1', Array.from({ length: n }, (_, i) => log({ fields: fields(i) })));
}

const uuid = (i: number) => `00000000-0000-4000-a000-${String(i).padStart(12, '0')}`;

void describe('field promotion', () => {
  test('a key recurring in enough rows is promoted, with the kind of its values, in first-seen order', () => {
    const b = rows(300, (i) => ({ status: 200 + (i % 3), host: `h${i % 4}`, req: uuid(i), ...(i < 50 ? { rare: 'x' } : {}) }));
    assert.deepEqual(keysToPromote([b], new Set(), 8, policy), [
      { key: 'status', kind: 'int' }, { key: 'host', kind: 'text' }, { key: 'req', kind: 'uuid' },
    ]);
  });

  test('rows of several batches and tenants count together', () => {
    const a = rows(60, () => ({ k: 'v' }));
    const b = { ...rows(60, () => ({ k: 'w' })), tenantId: 't2' };
    assert.deepEqual(keysToPromote([a, b], new Set(), 8, policy), [{ key: 'k', kind: 'text' }]);
  });

  test('known keys, a full catalog and small writes promote nothing', () => {
    const b = rows(300, () => ({ a: 'x', b: 'y' }));
    assert.deepEqual(keysToPromote([b], new Set(['a']), 8, policy), [{ key: 'b', kind: 'text' }]);
    assert.deepEqual(keysToPromote([b], new Set(), 1, policy), [{ key: 'a', kind: 'text' }]);
    assert.deepEqual(keysToPromote([b], new Set(), 0, policy), []);
    assert.deepEqual(keysToPromote([rows(99, () => ({ a: 'x' }))], new Set(), 8, policy), []);
  });

  test('a key of mixed kinds takes the commonest; values of no kind (floats, objects) never earn a column', () => {
    const mixed = rows(300, (i) => ({ m: i % 3 === 0 ? 'text' : i, f: i + 0.5, o: { a: i } }));
    assert.deepEqual(keysToPromote([mixed], new Set(), 8, policy), [{ key: 'm', kind: 'int' }]);
    // A few UUIDs among other strings: text, which holds them all.
    const someIds = rows(300, (i) => ({ id: i % 2 === 0 ? uuid(i) : `id-${i}` }));
    assert.deepEqual(keysToPromote([someIds], new Set(), 8, policy), [{ key: 'id', kind: 'text' }]);
  });

  test('a large write is sampled, and the sample stands for all its rows', () => {
    const b = rows(50_000, (i): Record<string, FieldValue> => (i % 10 === 0 ? { sparse: 'x', dense: i } : { dense: i }));
    // 5,000 rows carry `sparse` (every 10th: a pattern a fixed sampling stride could beat in step with).
    assert.deepEqual(keysToPromote([b], new Set(), 8, { minRows: 10_000, maxColumns: 8 }), [{ key: 'dense', kind: 'int' }]);
    assert.deepEqual(keysToPromote([b], new Set(), 8, { minRows: 3_000, maxColumns: 8 }).map((x) => x.key).sort(), ['dense', 'sparse']);
  });

  test('entries still to be parsed (LogWindows, as the DuckDB worker decodes NDJSON) are sampled the same way', () => {
    const lines = (n: number, line: (i: number) => Record<string, unknown>) =>
      Buffer.from(Array.from({ length: n }, (_, i) => JSON.stringify(line(i))).join('\n'));
    const lazy = (body: Buffer) => {
      const logWindows = nativeLogWindows(body, 1n, () => assert.fail('no bad line'));
      assert.ok(logWindows);
      return { tenantId: 't1', format: 'native', batch: { logs: [], spans: [], logWindows } };
    };
    const small = lazy(lines(300, (i) => ({ _msg: 'm', status: 200 + (i % 3), host: `h${i % 4}`, ...(i < 50 ? { rare: 'x' } : {}) })));
    assert.deepEqual(keysToPromote([small], new Set(), 8, policy), [{ key: 'status', kind: 'int' }, { key: 'host', kind: 'text' }]);
    const large = lazy(lines(50_000, (i) => (i % 10 === 0 ? { sparse: 'x', dense: i } : { dense: i })));
    assert.deepEqual(keysToPromote([large], new Set(), 8, { minRows: 10_000, maxColumns: 8 }), [{ key: 'dense', kind: 'int' }]);
    assert.deepEqual(keysToPromote([large], new Set(), 8, { minRows: 3_000, maxColumns: 8 }).map((x) => x.key).sort(), ['dense', 'sparse']);
  });

  test('batches that decode whole to give any row (OTLP) are sampled seldom but many rows at a time', () => {
    let decoded = 0;
    const body = (b: number) => {
      const logs = rows(4_000, (i) => ({ common: i, ...(b % 2 === 0 ? { even: 'x' } : {}) })).batch.logs;
      return {
        tenantId: 't1', format: 'otlp',
        batch: {
          logs: [], spans: [],
          logWindows: {
            count: logs.length, wholeBodySample: true, windows: () => [logs],
            sample: (n: number) => {
              decoded++;
              return pickAtRandom(logs, n);
            },
          },
        },
      };
    };
    const write = Array.from({ length: 60 }, (_, b) => body(b));
    // 60 bodies of 4,000 rows: 2,048 / 60 rows of each are due, so one of the 60 is decoded, not all of them, and
    // never none, wherever the random start falls: the start is drawn here at both ends and between (rounded to 34
    // rows each, a start under 8 of 2,048 read none).
    for (const draw of [0.999_999, 0.5, 0.000_001]) {
      decoded = 0;
      const random = mock.method(Math, 'random', () => draw);
      try {
        assert.deepEqual(keysToPromote(write, new Set(), 8, { minRows: 10_000, maxColumns: 8 })[0], { key: 'common', kind: 'int' });
      } finally {
        random.mock.restore();
      }
      assert.equal(decoded, 1, `draw ${draw}`);
    }
  });
});

void describe('field layout', () => {
  const col = (n: number) => ({ key: `k${n}`, column: `field_${n}`, kind: 'text' as const });

  test('columns stored at open are writable at once', () => {
    const layout = new FieldLayout([col(1)]);
    assert.deepEqual(layout.writableColumns(), [col(1)]);
  });

  test('a new column is filled only once the reads compiled before it have finished', async () => {
    const layout = new FieldLayout([col(1)]);
    let release = (): void => undefined;
    const older = layout.read(async (s) => {
      assert.equal(s.columns.length, 1);
      await new Promise<void>((r) => { release = r; });
    });
    layout.publish([col(1), col(2)]);
    assert.deepEqual(layout.writableColumns(), [col(1)], 'a read that knows only field_1 is running');
    // Reads starting now know field_2, and do not hold it back.
    let newer = (): void => undefined;
    const current = layout.read(async (s) => {
      assert.equal(s.columns.length, 2);
      await new Promise<void>((r) => { newer = r; });
    });
    assert.deepEqual(layout.writableColumns(), [col(1)]);
    release();
    await older;
    assert.deepEqual(layout.writableColumns(), [col(1), col(2)]);
    newer();
    await current;
  });

  test('a read that fails still stops counting', async () => {
    const layout = new FieldLayout([]);
    const failing = layout.read(() => Promise.reject(new Error('boom')));
    layout.publish([col(1)]);
    await assert.rejects(failing, /boom/);
    assert.deepEqual(layout.writableColumns(), [col(1)]);
  });
});
