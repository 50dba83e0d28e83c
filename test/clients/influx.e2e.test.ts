// @influxdata/influxdb-client (InfluxDB v2 JS client) against the real service (STYLE.md habit 7;
// wire-formats.md §3.15, §4 "Telegraf", §6). It posts line protocol to `/api/v2/write?org=&bucket=&precision=`
// as `text/plain; charset=utf-8` with `Authorization: Token <key>` — accepted on the app plane, and the ingest
// front door forwards `/api/v2/write` there (spec routing rule 3). Read back through the Prometheus API:
// each numeric field is `<measurement>_<field>`, tags are labels, the bucket is the `db` label.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InfluxDB, Point, HttpError, setLogger } from '@influxdata/influxdb-client';
import { call, type RunningService, type TestAccount } from '../support/service.js';
import { prom, sampleWith, startWithAccount, uid, waitProm } from './support.js';

let svc: RunningService;
let acct: TestAccount;

before(async () => {
  ({ svc, acct } = await startWithAccount());
});
after(async () => {
  await svc.stop();
});

/** A write API that does not retry, so that a refusal rejects flush() at once. */
function writeApi(url: string, token: string, bucket: string) {
  return new InfluxDB({ url, token }).getWriteApi('my-org', bucket, 'ns', { maxRetries: 0, batchSize: 1000, flushInterval: 0 });
}

describe('InfluxDB v2 client getWriteApi(org, bucket, "ns")', () => {
  for (const door of ['app', 'ingest'] as const) {
    test(`through the ${door} front door: fields of every type, tags as labels, flush() resolves`, async () => {
      const measurement = uid('influx_');
      const bucket = uid('bucket');
      const api = writeApi(svc[door], acct.key, bucket);
      const t0 = new Date(Date.now() - 30_000);
      api.writePoints([
        new Point(measurement).tag('host', 'web-1').tag('region', 'eu west')
          .floatField('usage', 42.5).intField('cores', 8).uintField('uptime', 123456).booleanField('healthy', true)
          .stringField('note', 'strings are not samples').timestamp(t0),
        new Point(measurement).tag('host', 'web-2').tag('region', 'us')
          .floatField('usage', -1.25).intField('cores', -3).booleanField('healthy', false).timestamp(t0),
      ]);
      await api.flush(); // resolves only on a 2xx (the spec's 204)
      await api.close();

      const usage = await waitProm(svc, acct, `${measurement}_usage`, 2);
      assert.equal(usage.length, 2, JSON.stringify(usage));
      const web1 = sampleWith(usage, { host: 'web-1' });
      assert.ok(web1, JSON.stringify(usage));
      assert.equal(web1.value[1], '42.5');
      assert.equal(web1.metric.region, 'eu west', 'a tag with an escaped space');
      assert.equal(web1.metric.db, bucket, 'the bucket becomes the db label');
      assert.equal(web1.metric.__name__, `${measurement}_usage`);
      assert.equal(sampleWith(usage, { host: 'web-2' })?.value[1], '-1.25');

      const expect: [field: string, host: string, value: string][] = [
        ['cores', 'web-1', '8'], ['cores', 'web-2', '-3'], ['uptime', 'web-1', '123456'],
        ['healthy', 'web-1', '1'], ['healthy', 'web-2', '0'],
      ];
      for (const [field, host, value] of expect) {
        const got = sampleWith(await prom(svc, acct, `${measurement}_${field}`), { host });
        assert.equal(got?.value[1], value, `${measurement}_${field}{host="${host}"}`);
      }
      assert.deepEqual(await prom(svc, acct, `${measurement}_note`), [], 'string fields are not stored as samples');
    });
  }

  test('a key the service does not know: flush() rejects with the HTTP error (no silent loss)', async () => {
    const logged: string[] = [];
    const previous = setLogger({ error: (m) => logged.push(m), warn: (m) => logged.push(m) }); // not on the console
    try {
      const api = writeApi(svc.app, 'sl_not-a-real-key', 'b');
      api.writePoint(new Point('m').floatField('f', 1));
      await assert.rejects(api.flush(), (e: unknown) => e instanceof HttpError && e.statusCode === 403);
      await api.close().catch(() => undefined);
    } finally {
      setLogger(previous);
    }
    assert.ok(logged.some((m) => m.includes('Write to InfluxDB failed')), 'the client logs the refusal');
  });
});

describe('InfluxDB probes', () => {
  test('GET /ping is 204 with X-Influxdb-Version', async () => {
    const r = await call(`${svc.app}/ping`);
    assert.equal(r.status, 204);
    assert.ok(r.headers['x-influxdb-version'], JSON.stringify(r.headers));
  });
});
