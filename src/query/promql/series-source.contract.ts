// One contract for every SeriesSource backend (STYLE habit 3): matcher semantics as Prometheus defines them
// (absent label = "", regexes fully anchored), inclusive time bounds, staleness markers and special floats
// kept, tenants apart, label discovery and metadata. Run by series-source.test.ts (memory) and
// stores/telemetry/duckdb/samples-sql.test.ts (DuckDB).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { staleMarker, type MetricMetadata, type MetricSample } from '../../model/metric.js';
import { isStaleSample, type LabelMatcher, type SeriesSource, type StoredSeries } from '../../model/series-source.js';

export interface ContractBackend {
  source: SeriesSource;
  write(tenantId: string, samples: MetricSample[]): Promise<void>;
  writeMetadata(tenantId: string, metadata: MetricMetadata[]): Promise<void>;
  close(): Promise<void>;
}

const S = (name: string, labels: Record<string, string>, timeMs: number, value: number): MetricSample => ({ name, labels, timeMs, value });

const SAMPLES: MetricSample[] = [
  S('cpu', { host: 'a', dc: 'east' }, 1000, 1), S('cpu', { host: 'a', dc: 'east' }, 2000, 2), S('cpu', { host: 'a', dc: 'east' }, 3000, 3),
  S('cpu', { host: 'b', dc: 'west' }, 1000, Number.NaN), S('cpu', { host: 'b', dc: 'west' }, 2000, Infinity),
  S('cpu', { host: 'b', dc: 'west' }, 3000, staleMarker()),
  S('cpu', { host: 'c' }, 2000, -Infinity),
  S('mem', { host: 'a', dc: '' }, 2000, 1e308), S('mem', { host: 'a', dc: '' }, 2000, 5e-324),
  S('odd', { path: "/it's \"quoted\"/ü", re: 'a.b' }, 2000, -0.5),
];

function m(name: string, type: LabelMatcher['type'], value: string): LabelMatcher {
  return { name, type, value };
}

export function seriesSourceContract(backend: string, open: () => Promise<ContractBackend>): void {
  describe(`SeriesSource contract: ${backend}`, () => {
    let b: ContractBackend;
    before(async () => {
      b = await open();
      await b.write('t1', SAMPLES);
      await b.write('t2', [S('cpu', { host: 'z' }, 2000, 9)]);
      await b.writeMetadata('t1', [
        { name: 'mem', type: 'gauge', help: 'Memory.', unit: 'bytes' },
        { name: 'cpu', type: 'counter', help: 'CPU.', unit: '' },
        { name: 'cpu', type: 'counter', help: 'CPU.', unit: '' },
      ]);
    });
    after(async () => b.close());

    const hosts = async (matchers: LabelMatcher[], start = 0, end = 10_000): Promise<string[]> =>
      (await b.source.select('t1', matchers, start, end)).map((s) => `${s.labels.__name__ ?? ''}/${s.labels.host ?? ''}`).sort();

    const selections: [string, LabelMatcher[], string[]][] = [
      ['name equality', [m('__name__', '=', 'cpu')], ['cpu/a', 'cpu/b', 'cpu/c']],
      ['name regex', [m('__name__', '=~', 'c.u|mem')], ['cpu/a', 'cpu/b', 'cpu/c', 'mem/a']],
      ['label inequality', [m('__name__', '=', 'cpu'), m('host', '!=', 'a')], ['cpu/b', 'cpu/c']],
      ['a regex is anchored', [m('host', '=~', 'a|b'), m('dc', '=~', 'eas')], []],
      ['negative regex', [m('__name__', '=', 'cpu'), m('host', '!~', '[ab]')], ['cpu/c']],
      ['an absent label equals ""', [m('__name__', '=', 'cpu'), m('dc', '=', '')], ['cpu/c']],
      ['an empty label value is no label', [m('__name__', '=', 'mem'), m('dc', '=', '')], ['mem/a']],
      ['present label', [m('dc', '!=', '')], ['cpu/a', 'cpu/b']],
      ['regex metacharacters and quotes', [m('path', '=', "/it's \"quoted\"/ü"), m('re', '=~', 'a\\.b')], ['odd/']],
      ['a value that looks like SQL', [m('host', '=', "a' OR '1'='1")], []],
      ['case-insensitive regex flag', [m('__name__', '=~', '(?i)CPU'), m('host', '=', 'a')], ['cpu/a']],
    ];
    for (const [name, matchers, want] of selections) {
      it(`selects by ${name}`, async () => assert.deepEqual(await hosts(matchers), want));
    }

    it('keeps samples in [start, end], ascending, with stale markers and special floats', async () => {
      const got = await b.source.select('t1', [m('__name__', '=', 'cpu'), m('host', '=~', 'a|b')], 2000, 3000);
      const host = (h: string): StoredSeries => got.find((s) => s.labels.host === h) ?? { labels: {}, samples: [] };
      assert.deepEqual(host('a').labels, { __name__: 'cpu', host: 'a', dc: 'east' });
      assert.deepEqual(host('a').samples.map((x) => [x.t, x.v]), [[2000, 2], [3000, 3]]);
      const bs = host('b').samples;
      assert.deepEqual(bs.map((x) => [x.t, x.v, isStaleSample(x)]), [[2000, Infinity, false], [3000, Number.NaN, true]]);
      const nan = (await b.source.select('t1', [m('host', '=', 'b')], 0, 1000))[0]?.samples[0];
      assert.ok(nan && Number.isNaN(nan.v) && !isStaleSample(nan), 'a plain NaN is not a staleness marker');
      const inf = (await b.source.select('t1', [m('host', '=', 'c')], 0, 10_000))[0]?.samples[0];
      assert.equal(inf?.v, -Infinity);
    });

    it('keeps one sample per timestamp and extreme doubles', async () => {
      const [mem] = await b.source.select('t1', [m('__name__', '=', 'mem')], 0, 10_000);
      const values = mem ? mem.samples.map((x) => x.v) : [];
      assert.ok(values.length === 1 && (values[0] === 1e308 || values[0] === 5e-324), String(values));
      const odd = await b.source.select('t1', [m('__name__', '=', 'odd')], 2000, 2000);
      assert.equal(odd[0]?.samples[0]?.v, -0.5);
    });

    it('keeps tenants apart', async () => {
      assert.deepEqual((await b.source.select('t2', [m('__name__', '=', 'cpu')], 0, 10_000)).map((s) => s.labels.host), ['z']);
      assert.deepEqual(await b.source.labelValues('t2', 'host', [], 0, 10_000), ['z']);
      assert.deepEqual(await b.source.select('t3', [m('__name__', '=', 'cpu')], 0, 10_000), []);
    });

    it('lists label names and values over the series in range', async () => {
      assert.deepEqual(await b.source.labelNames('t1', [], 0, 10_000), ['__name__', 'dc', 'host', 'path', 're']);
      assert.deepEqual(await b.source.labelNames('t1', [[m('__name__', '=', 'mem')], [m('host', '=', 'c')]], 0, 10_000), ['__name__', 'host']);
      assert.deepEqual(await b.source.labelNames('t1', [], 2500, 10_000), ['__name__', 'dc', 'host']);
      assert.deepEqual(await b.source.labelValues('t1', 'host', [], 0, 10_000), ['a', 'b', 'c']);
      assert.deepEqual(await b.source.labelValues('t1', 'host', [[m('dc', '=', 'west')]], 0, 10_000), ['b']);
      assert.deepEqual(await b.source.labelValues('t1', '__name__', [], 0, 1500), ['cpu']);
      assert.deepEqual(await b.source.labelValues('t1', 'nope', [], 0, 10_000), []);
    });

    it('lists series label sets without samples', async () => {
      const list = b.source.series?.bind(b.source);
      assert.ok(list, 'series() is implemented');
      const got = (await list('t1', [[m('__name__', '=', 'cpu'), m('host', '!=', 'c')], [m('re', '=~', 'a.b')]], 0, 10_000))
        .map((l) => `${l.__name__ ?? ''}/${l.host ?? ''}/${l.dc ?? ''}`).sort();
      assert.deepEqual(got, ['cpu/a/east', 'cpu/b/west', 'odd//']);
      assert.deepEqual(await list('t1', [[m('__name__', '=', 'cpu')]], 2500, 10_000).then((x) => x.length), 2);
      assert.deepEqual(await list('t2', [], 0, 10_000), [{ __name__: 'cpu', host: 'z' }]);
    });

    it('answers metadata by metric, once per distinct entry, limited by metric names', async () => {
      assert.deepEqual(await b.source.metadata('t1'), [
        { name: 'cpu', type: 'counter', help: 'CPU.', unit: '' }, { name: 'mem', type: 'gauge', help: 'Memory.', unit: 'bytes' }]);
      assert.deepEqual(await b.source.metadata('t1', 'mem'), [{ name: 'mem', type: 'gauge', help: 'Memory.', unit: 'bytes' }]);
      assert.deepEqual(await b.source.metadata('t1', undefined, 1), [{ name: 'cpu', type: 'counter', help: 'CPU.', unit: '' }]);
      assert.deepEqual(await b.source.metadata('t2'), []);
    });
  });
}
