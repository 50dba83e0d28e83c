// promtool (Debian's prometheus package) pointed at /api/v1/tenants/<t>/prometheus, as the issue asks: the
// Prometheus API shapes are what the real Prometheus tooling parses. The key rides as the Basic user.
import { before, after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { call, type RunningService, type TestAccount } from '../support/service.js';
import { startWithAccount, waitProm } from './support.js';

const PROMTOOL = '/usr/bin/promtool';
const run = promisify(execFile);

let svc: RunningService;
let acct: TestAccount;

void describe('promtool query against the tenant Prometheus API', { skip: existsSync(PROMTOOL) ? false : `${PROMTOOL} is absent (Debian package prometheus)` }, () => {
  before(async () => {
    ({ svc, acct } = await startWithAccount());
    const r = await call(`${svc.app}/api/v2/write?bucket=b&org=o`, {
      method: 'POST', headers: { Authorization: `Token ${acct.key}` }, body: 'promtool_cpu,host=a usage=42.5\npromtool_cpu,host=b usage=7\n',
    });
    assert.equal(r.status, 204, r.text);
    await waitProm(svc, acct, 'promtool_cpu_usage', 2);
  });
  after(async () => {
    await svc.stop();
  });

  const server = () => `http://${encodeURIComponent(acct.key)}:x@${svc.app.replace(/^http:\/\//, '')}/api/v1/tenants/${acct.tenantId}/prometheus`;
  const promtool = async (...args: string[]) => (await run(PROMTOOL, ['query', ...args], { timeout: 20_000 })).stdout;

  void test('instant queries, aggregations, label values and series parse in promtool', async () => {
    const instant = await promtool('instant', server(), 'promtool_cpu_usage');
    assert.match(instant, /promtool_cpu_usage\{db="b", host="a"\} => 42\.5 @\[/);
    assert.match(instant, /promtool_cpu_usage\{db="b", host="b"\} => 7 @\[/);
    assert.match(await promtool('instant', server(), 'sum(promtool_cpu_usage)'), /\{\} => 49\.5 @\[/);
    assert.deepEqual((await promtool('labels', server(), 'host')).trim().split('\n'), ['a', 'b']);
    assert.match(await promtool('series', '--match=promtool_cpu_usage', server()), /\{__name__="promtool_cpu_usage", db="b", host="a"\}/);
  });
});
