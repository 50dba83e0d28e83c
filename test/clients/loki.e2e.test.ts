// winston-loki against the real service's Loki push route (STYLE.md habit 7; wire-formats.md §3.4, §6).
// Its default protobuf mode posts a snappy-block PushRequest with `Content-Type: application/x-protobuf` and
// NO Content-Encoding; `json: true` posts JSON with 3-element values (structured metadata). It builds the
// URL as `host + '/loki/api/v1/push'` and passes `headers` through unchanged.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import winston from 'winston';
import LokiTransport from 'winston-loki';
import type { RunningService, TestAccount } from '../support/service.js';
import { startWithAccount, uid, waitLogs } from './support.js';

let svc: RunningService;
let acct: TestAccount;

before(async () => {
  ({ svc, acct } = await startWithAccount());
});
after(async () => {
  await svc.stop();
});

/** Logs through a winston logger with one LokiTransport, flushes, closes; returns the push errors seen. */
async function ship(
  json: boolean, labels: Record<string, string>, log: (logger: winston.Logger) => void,
  auth: { headers: Record<string, string> } | { basicAuth: string } = { headers: { 'X-API-Key': acct.key } },
): Promise<unknown[]> {
  const failures: unknown[] = [];
  const transport = new LokiTransport({
    host: svc.ingest,
    ...auth,
    json,
    labels,
    interval: 0.1, // seconds between batches
    gracefulShutdown: false, // no process exit hook inside the test runner
    onConnectionError: (e) => failures.push(e),
  });
  // winston-loki silently falls back to JSON when its optional `snappy` dependency does not load.
  const batcher = (transport as unknown as { batcher: { contentType: string } }).batcher;
  assert.equal(batcher.contentType, json ? 'application/json' : 'application/x-protobuf', 'the mode under test is the one used');
  // winston types its transports as `import * as Transport from 'winston-transport'`; the rule does not see
  // that namespace import as the class every transport extends (a false positive).
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
  const logger = winston.createLogger({ level: 'debug', transports: [transport] });
  log(logger);
  await new Promise((r) => setImmediate(r)); // winston hands entries to the transport asynchronously
  await transport.flush();
  await transport.close();
  logger.close();
  return failures;
}

const modes = [
  { name: 'protobuf (default: snappy body, no Content-Encoding)', json: false },
  { name: 'JSON (json: true)', json: true },
] as const;

for (const mode of modes) {
  describe(`winston-loki ${mode.name}`, () => {
    for (const serviceLabel of ['job', 'service_name'] as const) {
      test(`lines read back as _msg, labels as fields and _stream, service from the ${serviceLabel} label`, async () => {
        const service = uid('loki-');
        const marker = uid('m');
        const failures = await ship(mode.json, { [serviceLabel]: service, env: 'prod' }, (logger) => {
          logger.info(`${marker} user signed in`, { requestId: 'r-17', attempt: 2 });
          logger.error(`${marker} disk almost full`);
        });
        assert.deepEqual(failures, [], 'every push got a 2xx');

        const rows = await waitLogs(svc, acct, `service:${service}`, 2);
        assert.equal(rows.length, 2, JSON.stringify(rows));
        // winston-loki's line is `${message} ${JSON.stringify(rest of winston's info)}`, which includes `level`.
        const info = rows.find((r) => String(r._msg).startsWith(`${marker} user signed in`));
        assert.ok(info, JSON.stringify(rows));
        assert.equal(info._msg, `${marker} user signed in {"requestId":"r-17","attempt":2,"level":"info"}`);
        assert.equal(info.service, service);
        assert.equal(info.env, 'prod');
        assert.equal(info.severity, 'info', 'the level label is the severity');
        assert.equal(info._stream, `{${['env="prod"', 'level="info"', `${serviceLabel}="${service}"`].sort().join(',')}}`);
        if (serviceLabel === 'job') assert.equal(info.job, service, 'the job label stays a field');
        if (mode.json) {
          // JSON mode also sends the meta as structured metadata (values stringified by the client).
          assert.equal(info.requestId, 'r-17');
          assert.equal(info.attempt, '2');
        }
        const error = rows.find((r) => String(r._msg).startsWith(`${marker} disk almost full`));
        assert.equal(error?.severity, 'error');
        assert.equal(error._msg, `${marker} disk almost full {"level":"error"}`);
      });
    }
  });
}

describe('winston-loki credentials', () => {
  test("basicAuth: '<key>:<anything>' (Basic, key as the username) works too", async () => {
    const service = uid('loki-basic-');
    const failures = await ship(false, { job: service }, (logger) => logger.info('basic auth line'), { basicAuth: `${acct.key}:x` });
    assert.deepEqual(failures, []);
    const rows = await waitLogs(svc, acct, `service:${service}`);
    assert.equal(rows[0]?._msg, 'basic auth line {"level":"info"}');
  });

  test('without a key the push is refused and the client reports it (onConnectionError)', async () => {
    const failures = await ship(false, { job: uid('loki-refused-') }, (logger) => logger.info('refused line'), { headers: {} });
    // The batch is re-queued (clearOnError defaults to false) and sent again by close(): each try is a 401.
    assert.ok(failures.length >= 1);
    for (const f of failures) assert.equal((f as { statusCode?: number }).statusCode, 401);
  });
});
