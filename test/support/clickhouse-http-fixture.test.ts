// The ClickHouse HTTP fixture, checked with the official client pointed at it (`url: http://127.0.0.1:<port>`), and
// the store contract run over it: the `http(s)://` path of SIGHTLINE_TELEMETRY_DB (DESIGN §10, issue 11 item 5).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ClickHouseError, createClient, type ClickHouseClient } from '@clickhouse/client';
import { telemetryStoreContract } from '../../src/stores/telemetry/telemetry-store.contract.js';
import { seriesSourceContract } from '../../src/query/promql/series-source.contract.js';
import { openHttpStore } from '../../src/stores/telemetry/clickhouse/connect.js';
import { peekLogs } from '../../src/stores/telemetry/clickhouse/peek-logs.js';
import { databaseFor } from '../../src/stores/telemetry/clickhouse/test-engine.js';
import { startClickhouseHttpFixture, type ClickhouseHttpFixture } from './clickhouse-http-fixture.js';

const dirPromise = mkdtemp(join(tmpdir(), 'sightline-chfixture-'));
const fixturePromise = dirPromise.then((dir) => startClickhouseHttpFixture(join(dir, 'engine')));
after(async () => {
  await (await fixturePromise).close();
  await rm(await dirPromise, { recursive: true, force: true });
});

telemetryStoreContract('clickhouse over HTTP (the fixture)', async (key) =>
  openHttpStore(`${(await fixturePromise).url}/${databaseFor(key)}`, 'test'), peekLogs);

seriesSourceContract('clickhouse over HTTP (the fixture)', async () => {
  const store = await openHttpStore(`${(await fixturePromise).url}/series_source`, 'test');
  let position = 0n;
  return {
    source: store.metrics,
    write: (tenantId, samples) => store.write([{ tenantId, format: 'remote_write', batch: { logs: [], spans: [], samples } }], ++position),
    writeMetadata: (tenantId, metadata) => store.write([{ tenantId, format: 'remote_write', batch: { logs: [], spans: [], metadata } }], ++position),
    close: () => store.close(),
  };
});

void describe('ClickHouse HTTP fixture', () => {
  let fixture: ClickhouseHttpFixture;
  let client: ClickHouseClient;
  before(async () => {
    fixture = await fixturePromise;
    const admin = createClient({ url: fixture.url });
    await admin.command({ query: 'CREATE DATABASE IF NOT EXISTS fx' });
    await admin.close();
    client = createClient({ url: fixture.url, database: 'fx' });
    await client.command({
      query: `CREATE TABLE t (k String, n Int64) ENGINE = MergeTree ORDER BY k SETTINGS non_replicated_deduplication_window = 100`,
    });
  });
  after(() => client.close());

  const rows = async (query: string, params?: Record<string, unknown>) =>
    (await client.query({ query, format: 'JSONEachRow', ...(params ? { query_params: params } : {}) })).json<Record<string, unknown>>();

  void it('answers ping', async () => {
    assert.equal((await client.ping()).success, true);
  });

  void it('binds parameters as a server does: quotes, tabs, backslashes, 64-bit integers, arrays', async () => {
    const got = await rows('SELECT {s:String} AS s, {n:Int64} AS n, has({a:Array(String)}, {s:String}) AS h', {
      s: "it's\t\\ \"x\"", n: 9_223_372_036_854_775_806n, a: ["it's\t\\ \"x\"", 'b'],
    });
    assert.deepEqual(got, [{ s: "it's\t\\ \"x\"", n: '9223372036854775806', h: 1 }]);
  });

  void it('inserts JSONEachRow into the request database; a repeated dedup token is dropped, and the token does not linger', async () => {
    const values = [{ k: 'a', n: 1 }, { k: 'b', n: 2 }];
    await client.insert({ table: 't', values, format: 'JSONEachRow', clickhouse_settings: { insert_deduplication_token: 'w1', async_insert: 0 } });
    await client.insert({ table: 't', values, format: 'JSONEachRow', clickhouse_settings: { insert_deduplication_token: 'w1', async_insert: 0 } });
    assert.deepEqual(await rows('SELECT count() AS c FROM t'), [{ c: '2' }]);
    await client.insert({ table: 't', values: [{ k: 'c', n: 3 }], format: 'JSONEachRow', clickhouse_settings: { async_insert: 0 } });
    assert.deepEqual(await rows('SELECT count() AS c FROM t'), [{ c: '3' }], 'the next insert has no token of its own');
  });

  void it('reports an error as ClickHouse does: the exception code, and the message', async () => {
    await assert.rejects(client.query({ query: 'SELECT * FROM nope' }), (e: unknown) => {
      assert.ok(e instanceof ClickHouseError);
      assert.equal(e.code, '60');
      assert.match(e.message, /nope/);
      return true;
    });
    await assert.rejects(client.command({ query: 'SELEC 1' }), (e: unknown) => e instanceof ClickHouseError && e.code === '62');
  });

  void it('keeps each request in its own database', async () => {
    const other = createClient({ url: fixture.url, database: 'default' });
    try {
      await assert.rejects(other.query({ query: 'SELECT count() FROM t' }), (e: unknown) => e instanceof ClickHouseError && e.code === '60');
    } finally {
      await other.close();
    }
    assert.deepEqual(await rows('SELECT currentDatabase() AS d'), [{ d: 'fx' }]);
  });
});
