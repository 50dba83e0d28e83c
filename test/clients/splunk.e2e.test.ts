// splunk-logging (Splunk's own JS HEC client) against the real service (STYLE.md habit 7; wire-formats.md
// §3.12, §4 "Splunk HEC clients", §6). With a bare `url` it posts to `/services/collector/event/1.0`, always
// with `Authorization: Splunk <token>` — a scheme the spec refuses (Authentication rule 1: 401). The key
// has to travel beside it as `X-API-Key`, set through the logger's `requestOptions.headers` (passed on to
// needle). Batches are concatenated JSON objects `{..}{..}`, labelled application/x-www-form-urlencoded.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { IncomingMessage } from 'node:http';
import type { RunningService, TestAccount } from '../support/service.js';
import { startWithAccount, uid, waitLogs } from './support.js';

/** The part of splunk-logging's Logger these tests use (the package ships no types). */
interface SplunkLogger {
  requestOptions: { headers?: Record<string, string> };
  error: (err: Error, context: unknown) => void;
  send(context: { message: unknown; severity?: string; metadata?: Record<string, string> }, cb?: SendCallback): void;
  flush(cb?: SendCallback): void;
}
type SendCallback = (err: Error | null, resp: IncomingMessage | null, body: unknown) => void;
interface SplunkConfig { token: string; url: string; maxBatchCount?: number }
const { Logger } = createRequire(import.meta.url)('splunk-logging') as { Logger: new (config: SplunkConfig) => SplunkLogger };

let svc: RunningService;
let acct: TestAccount;

before(async () => {
  ({ svc, acct } = await startWithAccount());
});
after(async () => {
  await svc.stop();
});

interface Outcome { err: Error | null; status: number | undefined; body: unknown; reportedErrors: Error[] }

/** A logger for a bare ingest URL (so its default path); `withKeyHeader` adds X-API-Key the documented way. */
function logger(withKeyHeader: boolean, maxBatchCount = 1): { log: SplunkLogger; reportedErrors: Error[] } {
  const log = new Logger({ token: acct.key, url: svc.ingest, maxBatchCount });
  const reportedErrors: Error[] = [];
  log.error = (e) => reportedErrors.push(e); // instead of console.log
  if (withKeyHeader) log.requestOptions.headers = { 'X-API-Key': acct.key };
  return { log, reportedErrors };
}

function sendOne(l: { log: SplunkLogger; reportedErrors: Error[] }, context: Parameters<SplunkLogger['send']>[0]): Promise<Outcome> {
  return new Promise((resolve) => {
    l.log.send(context, (err, resp, body) => resolve({ err, status: resp?.statusCode, body, reportedErrors: l.reportedErrors }));
  });
}

describe('splunk-logging Logger against /services/collector/event/1.0', () => {
  test("alone, its 'Authorization: Splunk <token>' gets the spec's 401", async () => {
    const service = uid('hec-refused-');
    const out = await sendOne(logger(false), { message: 'never stored', metadata: { source: service } });
    assert.equal(out.err, null, 'the HTTP exchange itself succeeded');
    assert.equal(out.status, 401);
    assert.match((out.body as { detail?: string }).detail ?? '', /X-API-Key/, 'the detail says what to send instead');
  });

  // splunk-logging never looks at the HTTP status: it calls its error handler only for a body whose `code`
  // is present and non-zero (splunklogger.js `_sendEvents`), so HEC refusals must carry Splunk's `code`.
  test('a refusal reaches the client\'s error handler: the 401 body carries a non-zero Splunk code', async () => {
    const l = logger(false);
    const out = await sendOne(l, { message: 'never stored', metadata: { source: uid('hec-refused-') } });
    assert.equal(out.status, 401);
    const body = out.body as { code?: number; text?: string; detail?: string };
    assert.ok(body.code !== undefined && body.code !== 0, `body: ${JSON.stringify(out.body)}`);
    assert.equal(typeof body.detail, 'string', "the spec's fields stay");
    assert.equal(out.reportedErrors.length, 1, 'the client notices the refusal');
    assert.equal(out.reportedErrors[0]?.message, body.text, 'and reports Splunk\'s text');
  });

  test('with the key also sent as X-API-Key (requestOptions.headers) the event is accepted and reads back', async () => {
    const service = uid('hec-');
    const out = await sendOne(logger(true), {
      message: 'checkout completed',
      severity: 'warn',
      metadata: { source: service, sourcetype: 'checkout', host: 'web-3', index: 'main' },
    });
    assert.equal(out.err, null);
    assert.equal(out.status, 200);
    assert.deepEqual(out.reportedErrors, []);
    assert.equal((out.body as { code?: number }).code, 0, 'the HEC success body the client looks for');

    const rows = await waitLogs(svc, acct, `service:${service}`);
    assert.equal(rows.length, 1, JSON.stringify(rows));
    const row = rows[0] ?? {};
    // The client's default eventFormatter sends event = { message, severity }.
    assert.equal(row._msg, 'checkout completed', 'event.message is the message');
    assert.equal(row.severity, 'warn', 'event.severity is the severity');
    assert.equal(row.service, service, 'service ← source');
    assert.equal(row.sourcetype, 'checkout');
    assert.equal(row.host, 'web-3');
    assert.equal(row.index, 'main');
  });

  test('an object message (nested by the default eventFormatter) is kept whole: _msg is the event as JSON', async () => {
    const service = uid('hec-obj-');
    const out = await sendOne(logger(true), { message: { temperature: '70F', chickenCount: 500 }, metadata: { source: service } });
    assert.equal(out.status, 200);
    const rows = await waitLogs(svc, acct, `service:${service}`);
    const row = rows[0] ?? {};
    assert.deepEqual(JSON.parse(String(row._msg)), { message: { temperature: '70F', chickenCount: 500 }, severity: 'info' });
    assert.equal(row['message.temperature'], '70F', 'and flattened into fields');
  });

  test('a batch (maxBatchCount: 3) goes out as concatenated objects and every event reads back', async () => {
    const service = uid('hec-batch-');
    const l = logger(true, 3);
    const outcome = await new Promise<Outcome>((resolve) => {
      for (let i = 0; i < 3; i++) {
        l.log.send({ message: `batched event ${i}`, metadata: { source: service } }, (err, resp, body) => {
          resolve({ err, status: resp?.statusCode, body, reportedErrors: l.reportedErrors });
        });
      }
    });
    assert.equal(outcome.status, 200);
    assert.deepEqual(outcome.reportedErrors, []);
    assert.equal((outcome.body as { accepted?: number }).accepted, 3);
    const rows = await waitLogs(svc, acct, `service:${service}`, 3);
    assert.deepEqual(rows.map((r) => r._msg).sort(), ['batched event 0', 'batched event 1', 'batched event 2']);
  });
});
