// ClickhouseSeriesSource on the real engine in-process (chdb): the PromQL SeriesSource contract every backend passes
// (issue 11 item 3), with samples and metadata written the way the WAL's drain writes them, through store.write.
import { after } from 'node:test';
import { seriesSourceContract } from '../../../query/promql/series-source.contract.js';
import { startTestEngine } from './test-engine.js';

const enginePromise = startTestEngine();
after(async () => (await enginePromise).close());

seriesSourceContract('clickhouse (chdb in-process)', async () => {
  const store = await (await enginePromise).open(`series-source-${process.pid}`);
  let position = 0n;
  return {
    source: store.metrics,
    write: (tenantId, samples) => store.write([{ tenantId, format: 'remote_write', batch: { logs: [], spans: [], samples } }], ++position),
    writeMetadata: (tenantId, metadata) => store.write([{ tenantId, format: 'remote_write', batch: { logs: [], spans: [], metadata } }], ++position),
    close: () => store.close(),
  };
});
