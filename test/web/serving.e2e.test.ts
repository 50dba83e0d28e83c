// The app as the app front door serves it (issue 8 item 1; DESIGN §7): /app/ with no-cache HTML, hashed assets
// cached for a year, gzip when asked, deep links answered with the app, `GET /` from a browser redirected while
// the Elasticsearch probe keeps answering its clients, nothing outside the build ever read, and the ingest door
// knowing nothing of the app.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, startService, type RunningService } from '../support/service.js';
import { raw } from '../support/load.js';

const BUILT = join(process.cwd(), 'dist', 'web', 'app', 'index.html');
const skip = existsSync(BUILT) ? false : 'the app is not built (npm run build)';
let svc: RunningService;

before(async () => {
  if (skip === false) svc = await startService();
});
after(async () => {
  if (skip === false) await svc.stop();
});

describe('the web app on the app front door', { skip }, () => {
  test('GET / with Accept: text/html redirects to /app/; without it the Elasticsearch probe answers', async () => {
    const browser = await call(`${svc.app}/`, { headers: { Accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' });
    assert.equal(browser.status, 302);
    assert.equal(browser.headers.location, '/app/');
    const probe = await call(`${svc.app}/`);
    assert.equal(probe.status, 200);
    assert.equal(probe.headers['x-elastic-product'], 'Elasticsearch');
    const ingestProbe = await call(`${svc.ingest}/`, { headers: { Accept: 'text/html' }, redirect: 'manual' });
    assert.notEqual(ingestProbe.status, 302, 'the ingest door has no app');
  });

  test('index.html is no-cache; deep links get it too; hashed assets are immutable and gzipped', async () => {
    const index = await call(`${svc.app}/app/`);
    assert.equal(index.status, 200);
    assert.match(String(index.headers['content-type']), /^text\/html/);
    assert.equal(index.headers['cache-control'], 'no-cache');
    assert.equal(index.text, readFileSync(BUILT, 'utf8'));
    const deep = await call(`${svc.app}/app/explore?query=error&start=now-1h&end=now`);
    assert.equal(deep.status, 200);
    assert.equal(deep.text, index.text);
    const script = /src="\/app\/(assets\/[^"]+\.js)"/.exec(index.text)?.[1];
    assert.ok(script, 'the HTML names its script');
    const res = await fetch(`${svc.app}/app/${script}`, { headers: { 'Accept-Encoding': 'gzip' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(res.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.equal(res.headers.get('content-encoding'), 'gzip');
    const plain = readFileSync(join(process.cwd(), 'dist', 'web', 'app', script));
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), plain, 'fetch un-gzips to the built file');
  });

  test('a missing asset is a 404, `..` never leaves the build, writes are 405', async () => {
    assert.equal((await call(`${svc.app}/app/assets/nope-123.js`)).status, 404);
    const traversal = await raw(`${svc.app}/app/assets/..%2f..%2f..%2fpackage.json`);
    assert.equal(traversal.status, 404);
    assert.doesNotMatch(traversal.text, /"name": "sightline"/);
    const post = await call(`${svc.app}/app/explore`, { method: 'POST', body: '{}' });
    assert.equal(post.status, 405);
    assert.equal((await call(`${svc.ingest}/app/`)).status, 404, 'the ingest door does not serve the app');
  });
});
