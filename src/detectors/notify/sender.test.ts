// The HTTP sender's classification of answers (sender.ts), against a local server: 2xx delivered, 5xx/408/429
// retryable (Retry-After read), other 4xx final, a refused connection and a timeout retryable.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { httpSender, retryAfterMs } from './sender.js';

let server: http.Server | undefined;
let base = '';
before(async () => {
  server = http.createServer((req, res) => {
    const status = Number((req.url ?? '/200').slice(1));
    if (status === 0) return; // never answers
    res.writeHead(status, status === 429 ? { 'Retry-After': '7' } : {});
    res.end(status >= 400 ? 'no_service' : 'ok');
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

void describe('notification sender', () => {
  // Answers get a generous timeout (a loaded CI machine can take longer than 300 ms to answer); the server that
  // never answers is asked with a short one.
  const send = httpSender(10_000);
  const post = (path: string, sender = send) => sender({ url: `${base}${path}`, headers: { 'X-Token': 't' }, body: { a: 1 } });

  void it('classifies answers for the retry logic', async () => {
    assert.deepEqual(await post('/200'), { ok: true, status: 200 });
    assert.deepEqual(await post('/202'), { ok: true, status: 202 });
    assert.deepEqual(await post('/500'), { ok: false, retryable: true, status: 500, error: 'HTTP 500: no_service' });
    assert.deepEqual(await post('/429'), { ok: false, retryable: true, status: 429, error: 'HTTP 429: no_service', retryAfterMs: 7000 });
    assert.deepEqual(await post('/404'), { ok: false, retryable: false, status: 404, error: 'HTTP 404: no_service' });
    const slow = await post('/0', httpSender(300));
    assert.deepEqual(slow, { ok: false, retryable: true, error: 'timed out after 300 ms' });
    const refused = await send({ url: 'http://127.0.0.1:9/', headers: {}, body: {} });
    assert.ok(!refused.ok && refused.retryable, JSON.stringify(refused));
  });

  void it('reads Retry-After as seconds or an HTTP date', () => {
    assert.equal(retryAfterMs('120', 0), 120_000);
    assert.equal(retryAfterMs('Thu, 01 Jan 1970 00:01:00 GMT', 30_000), 30_000);
    assert.equal(retryAfterMs('soon', 0), undefined);
    assert.equal(retryAfterMs(null, 0), undefined);
  });
});
