// The service's life as an operator sees it (DESIGN §2): first start on an empty data dir, restart, config
// errors that name the setting, and SIGTERM: stop accepting, finish in-flight requests, flush the WAL and the
// counters, exit 0 — metering stays exact across the restart (DESIGN §6 Metering).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { admin, call, newAccount, sleep, startService, type RunningService } from './support/service.js';
import { entries, ingest, ndjson, obj, query, raw, show, uid, usageBytes, waitForRows } from './support/load.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.js');
const sh = promisify(execFile);

/** The last word of the first output line that contains `label`. */
function printed(output: string, label: string): string | undefined {
  const line = output.split('\n').find((l) => l.includes(label));
  return line?.trim().split(/\s+/).pop();
}

// One data dir lives through the first three tests: first start, SIGTERM with requests in flight, restart.
let life: RunningService | undefined;
let token = '';
let firstKey = '';
let bootTag = '';
/** The SIGTERM test's account and what it had acknowledged when the process exited. */
let termAccount: { tenantId: string; key: string } | undefined;
let termRun = '';
let acknowledgedBytes = 0;
let acknowledgedEntries = 0;

after(async () => {
  if (!life) return;
  const dir = life.dataDir;
  await life.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The service handle with the admin token the service printed (startService does not know it). */
const withToken = (s: RunningService): RunningService => ({ ...s, adminToken: token });

test('first start without SIGHTLINE_ADMIN_TOKEN prints an API key and an admin token, stores the token with mode 0600, and the key ingests into tenant default', async () => {
  life = await startService({ env: { SIGHTLINE_ADMIN_TOKEN: '' } });
  const svc = life;
  await sleep(200); // the lines printed just before the listening line
  const out = svc.output();
  token = printed(out, 'admin token') ?? '';
  firstKey = printed(out, 'API key') ?? '';
  assert.ok(token.length >= 16, `an admin token is printed:\n${out}`);
  assert.ok(firstKey.length >= 16, `an API key is printed:\n${out}`);
  assert.notEqual(token, firstKey);

  const file = join(svc.dataDir, 'admin-token');
  assert.equal(statSync(file).mode & 0o777, 0o600, 'admin-token mode');
  assert.equal(readFileSync(file, 'utf8').trim(), token);
  assert.equal((await admin(withToken(svc), 'GET', '/admin/v1/accounts/nope')).status, 404, 'the printed token is the admin token (404, not 401)');
  assert.equal((await admin(svc, 'GET', '/admin/v1/accounts/nope')).status, 401, 'and no other token is');

  bootTag = uid('boot');
  const r = await ingest(svc.ingest, firstKey, JSON.stringify(entries(2, bootTag)));
  assert.equal(r.status, 200, show(r));
  assert.equal((await waitForRows(svc, 'default', firstKey, `tag:=${bootTag}`, 2)).rows.length, 2, 'the printed key reads its entries back from tenant "default"');
  const usage = await call(`${svc.app}/api/v1/tenants/default/usage`, { headers: { 'X-API-Key': firstKey } });
  assert.equal(obj(usage).tier, 'custom', 'the first account is tier custom');

  // The printed curl line sends a first entry as it stands.
  const curlStart = out.indexOf('curl ');
  assert.ok(curlStart >= 0, `a curl line is printed:\n${out}`);
  const curlText = out.slice(curlStart, out.indexOf('/api/v1/ingest', curlStart) + '/api/v1/ingest'.length);
  assert.ok(curlText.includes(svc.ingest), `the curl line targets ${svc.ingest}: ${curlText}`);
  const curl = await sh('sh', ['-c', `${curlText} -o /dev/null -w '%{http_code}'`]);
  assert.equal(curl.stdout.trim(), '200', `the printed curl: ${curlText}`);
});

/**
 * An ingest request whose body is only half sent: `finish()` sends the rest and resolves the reply's status
 * line and body. The connection is open (and the request in flight) from the moment this resolves.
 */
async function halfSent(base: string, key: string, body: Buffer): Promise<{ finish: () => Promise<{ status: number; text: string; error?: string }> }> {
  const u = new URL(base);
  const socket = net.connect(Number(u.port), u.hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let text = '';
  let error: string | undefined;
  const ended = new Promise<void>((resolve) => {
    socket.on('data', (d: Buffer) => { text += d.toString('utf8'); });
    socket.on('error', (e) => { error = e.message; resolve(); });
    socket.on('close', () => resolve());
  });
  const half = Math.floor(body.length / 2);
  socket.write(`POST /api/v1/ingest HTTP/1.1\r\nHost: ${u.host}\r\nX-API-Key: ${key}\r\nContent-Type: application/x-ndjson\r\n` +
    `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
  socket.write(body.subarray(0, half));
  return {
    finish: async () => {
      socket.write(body.subarray(half));
      const timer = setTimeout(() => socket.destroy(), 20_000);
      await ended;
      clearTimeout(timer);
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      return { status: m ? Number(m[1]) : 0, text: text.slice(text.indexOf('\r\n\r\n') + 4), ...(error === undefined ? {} : { error }) };
    },
  };
}

test('SIGTERM during in-flight ingest: the in-flight requests complete with 200, new connections are refused, and the process exits 0', async () => {
  assert.ok(life, 'the first-start service runs');
  const svc = life;
  const acct = await newAccount(withToken(svc), { tier: 'custom' });
  termAccount = { tenantId: acct.tenantId, key: acct.key };
  termRun = uid('term');
  // Acknowledged just before the signal: their metering is still in memory when SIGTERM arrives.
  for (let i = 0; i < 8; i++) {
    const body = ndjson(entries(10, termRun, { phase: 'before' }));
    const r = await ingest(svc.ingest, acct.key, body);
    assert.equal(r.status, 200, show(r));
    acknowledgedBytes += Buffer.byteLength(body);
    acknowledgedEntries += 10;
  }
  // In flight when the signal arrives: half their body is on the wire.
  const bodies = [0, 1, 2, 3].map(() => Buffer.from(ndjson(entries(50, termRun, { phase: 'inflight' }))));
  const inflight = await Promise.all(bodies.map((b) => halfSent(svc.ingest, acct.key, b)));
  await sleep(300); // the server has taken the connections and is reading the bodies

  svc.child.kill('SIGTERM');
  await sleep(300);
  const refused = await raw(svc.ingest + '/api/v1/ingest', {
    method: 'POST', body: ndjson(entries(1, termRun, { phase: 'after' })), headers: { 'X-API-Key': acct.key }, timeoutMs: 5000,
  });
  assert.equal(refused.status, 0, `a new connection after SIGTERM is not served: ${show(refused)}`);

  const replies = await Promise.all(inflight.map((f) => f.finish()));
  for (const [i, r] of replies.entries()) {
    assert.equal(r.status, 200, `in-flight request ${i}: ${r.error ?? ''} ${r.text.slice(0, 200)}`);
    assert.equal((JSON.parse(r.text) as Record<string, unknown>).accepted, 50);
    acknowledgedBytes += bodies[i]?.length ?? 0;
    acknowledgedEntries += 50;
  }
  const code = await svc.stop({ keepData: true });
  assert.equal(code, 0, `exit code after SIGTERM:\n${svc.output().slice(-2000)}`);
});

test('after the restart: no second first-start account, key or token; the entries acknowledged around SIGTERM are there and usage equals exactly the bytes acknowledged', async () => {
  assert.ok(life && termAccount, 'the earlier tests ran');
  const { dataDir } = life;
  life = await startService({ dataDir, env: { SIGHTLINE_ADMIN_TOKEN: '' } });
  const svc = life;
  await sleep(200);
  const again = svc.output();
  assert.ok(!again.includes(firstKey), 'the key is shown once only');
  assert.ok(!again.includes(token), 'the admin token is not printed again');
  assert.equal(printed(again, 'API key'), undefined, `no second first-start account:\n${again}`);
  assert.equal(readFileSync(join(dataDir, 'admin-token'), 'utf8').trim(), token, 'the token file is unchanged');
  assert.equal((await admin(withToken(svc), 'GET', '/admin/v1/accounts/nope')).status, 404, 'the stored admin token still works');
  assert.equal((await query(svc, 'default', firstKey, `tag:=${bootTag}`)).rows.length, 2, 'the first key and its data survive');

  const back = await waitForRows(svc, termAccount.tenantId, termAccount.key, `tag:=${termRun}`, acknowledgedEntries, 10_000, '&limit=10000');
  assert.equal(back.rows.length, acknowledgedEntries, 'every acknowledged entry is there after the restart');
  assert.equal(back.rows.filter((r) => r.phase === 'inflight').length, 200, 'the in-flight entries are there');
  assert.equal(back.rows.filter((r) => r.phase === 'after').length, 0);
  assert.equal(await usageBytes(svc, termAccount.tenantId, termAccount.key), acknowledgedBytes, 'metering is exact across the restart');
});

test('a bad setting stops start-up with a non-zero exit and a message naming the setting', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-cfg-'));
  const cases: { env?: Record<string, string>; args?: string[]; names: string }[] = [
    { env: { SIGHTLINE_INGEST_PORT: 'abc' }, names: 'SIGHTLINE_INGEST_PORT' },
    { env: { SIGHTLINE_APP_PORT: '70000' }, names: 'SIGHTLINE_APP_PORT' },
    { env: { SIGHTLINE_MAX_BODY_SIZE_MB: '0' }, names: 'SIGHTLINE_MAX_BODY_SIZE_MB' },
    { env: { SIGHTLINE_MAX_BODY_SIZE_MB: '2.5x' }, names: 'SIGHTLINE_MAX_BODY_SIZE_MB' },
    { env: { SIGHTLINE_KEY_CACHE_TTL_MS: '-1' }, names: 'SIGHTLINE_KEY_CACHE_TTL_MS' },
    { env: { SIGHTLINE_SWEEP_INTERVAL_MS: 'hourly' }, names: 'SIGHTLINE_SWEEP_INTERVAL_MS' },
    { env: { SIGHTLINE_WAL_MAX_MB: 'lots' }, names: 'SIGHTLINE_WAL_MAX_MB' },
    { env: { SIGHTLINE_PLATFORM_RATE: '0' }, names: 'SIGHTLINE_PLATFORM_RATE' },
    { env: { SIGHTLINE_TEST_CLOCK: 'maybe' }, names: 'SIGHTLINE_TEST_CLOCK' },
    { env: { SIGHTLINE_CONTROL_DB: 'mysql://localhost/x' }, names: 'SIGHTLINE_CONTROL_DB' },
    { env: { SIGHTLINE_ADMIN_TOKEN: 'short' }, names: 'SIGHTLINE_ADMIN_TOKEN' },
    { args: ['--ingest-port', 'abc'], names: '--ingest-port' },
    { args: ['--no-such-flag', '1'], names: '--no-such-flag' },
  ];
  try {
    await Promise.all(cases.map(async (c) => {
      const { code, output } = await runToExit(c.args ?? [], {
        SIGHTLINE_DATA_DIR: dataDir, SIGHTLINE_INGEST_PORT: '0', SIGHTLINE_APP_PORT: '0', SIGHTLINE_ADMIN_TOKEN: 'config-test-admin-token', ...c.env,
      });
      const what = JSON.stringify(c.env ?? c.args);
      assert.notEqual(code, 0, `${what} must stop start-up:\n${output}`);
      assert.notEqual(code, null, `${what}: the process must exit by itself:\n${output}`);
      assert.ok(output.includes(c.names), `${what}: the message must name ${c.names}:\n${output}`);
      assert.ok(!/sightline listening/.test(output), `${what}: nothing listens`);
    }));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** Runs `sightline serve` to its exit (killed after 20 s); resolves the exit code and everything printed. */
function runToExit(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
