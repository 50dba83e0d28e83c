// winston-log2gelf over HTTP against the real service's GELF route (STYLE.md habit 7; wire-formats.md §3.13,
// §6). One POST per message, fire-and-forget (the transport never reads the reply), to `protocolOptions.path`
// (default `/gelf`) on `host`:`port`. Many GELF senders cannot set headers, so the spec allows `?api_key=`
// on /gelf; headers can also go through `protocolOptions.headers`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import winston from 'winston';
import type TransportStream from 'winston-transport';
import type { RunningService, TestAccount } from '../support/service.js';
import { startWithAccount, uid, waitLogs } from './support.js';

/** winston-log2gelf's options (the package ships no types). */
interface Log2gelfOptions {
  protocol: 'http' | 'https' | 'tcp' | 'tls';
  host: string;
  port: number;
  hostname?: string;
  service?: string;
  environment?: string;
  release?: string;
  keepAlive?: number;
  protocolOptions?: { path?: string; headers?: Record<string, string> };
}
const Log2gelf = createRequire(import.meta.url)('winston-log2gelf') as new (opts: Log2gelfOptions) => TransportStream;

let svc: RunningService;
let acct: TestAccount;

before(async () => {
  ({ svc, acct } = await startWithAccount());
});
after(async () => {
  await svc.stop();
});

// How the key can travel: the query string (the route's allowed fallback) or a header.
const ways = [
  { name: "path '/gelf?api_key=<key>'", protocolOptions: () => ({ path: `/gelf?api_key=${encodeURIComponent(acct.key)}` }) },
  { name: "path '/api/v1/gelf' with protocolOptions.headers X-API-Key", protocolOptions: () => ({ path: '/api/v1/gelf', headers: { 'X-API-Key': acct.key } }) },
];

describe('winston-log2gelf, protocol http', () => {
  for (const way of ways) {
    test(`${way.name}: short_message is _msg, full_message and _-prefixed fields read back`, async () => {
      const service = uid('gelf-');
      const ingest = new URL(svc.ingest);
      const transport = new Log2gelf({
        protocol: 'http', host: ingest.hostname, port: Number(ingest.port),
        hostname: 'worker-7', service, environment: 'staging', release: '1.4.2',
        keepAlive: -1, // no keep-alive agent holding the test process open
        protocolOptions: way.protocolOptions(),
      });
      // winston types its transports as `import * as Transport from 'winston-transport'`; the rule does not see
      // that namespace import as the class every transport extends (a false positive).
      // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
      const logger = winston.createLogger({ level: 'debug', transports: [transport] });
      logger.warn('payment retry scheduled\nattempt 2 of 5, backoff 30s', { orderId: 'o-42', attempt: 2, tags: ['pay', 'retry'] });
      logger.info('single line message');

      const rows = await waitLogs(svc, acct, `service:${service}`, 2);
      logger.close();
      assert.equal(rows.length, 2, JSON.stringify(rows));
      const warn = rows.find((r) => r._msg === 'payment retry scheduled');
      assert.ok(warn, `short_message (the first line) is _msg: ${JSON.stringify(rows)}`);
      assert.equal(warn.full_message, 'payment retry scheduled\nattempt 2 of 5, backoff 30s');
      assert.equal(warn.service, service, 'service ← _service');
      assert.equal(warn.host, 'worker-7');
      assert.equal(warn.environment, 'staging', '_environment without its underscore');
      assert.equal(warn.release, '1.4.2');
      assert.equal(warn.orderId, 'o-42');
      assert.equal(String(warn.attempt), '2');
      assert.deepEqual(JSON.parse(String(warn.tags)), ['pay', 'retry'], 'the client sends non-scalars as JSON text');
      assert.ok(!('_orderId' in warn) && !('version' in warn), 'no underscore-prefixed keys, no GELF version');
      // winston-log2gelf maps winston levels, not syslog ones: warn → GELF level 1 (syslog "alert").
      assert.equal(warn.severity, 'alert');
      assert.ok(rows.some((r) => r._msg === 'single line message' && r.full_message === 'single line message'));
    });
  }
});
