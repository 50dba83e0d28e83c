// Notification channels through the real service (DESIGN §8): the CRUD API and who may write (scope admin or a
// member's session; a read key and a viewer may not), write-only secrets, refusals that name the field, tenant
// isolation, `POST …/<id>/test` to a webhook receiver (v4 payload; a 503 reported, not hidden), to Slack's message
// shape and to Debian's real Alertmanager, and the notification counters on /metrics.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, newAccount, startService, type RunningService, type TestAccount } from './support/service.js';
import { addUser, bearer, sessionOf } from './support/sessions.js';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { ALERTMANAGER_MISSING, alertmanagerPresent, startAlertmanager } from './support/alertmanager-server.js';
import { fingerprint as labelsFingerprint } from '../src/detectors/engine/labels.js';

interface ChannelBody {
  id: string; type: string; name: string; url: string; headers: Record<string, string>; send_resolved: boolean;
  last_delivery?: unknown;
}

void describe('notification channels API', () => {
  let svc: RunningService | undefined;
  let acct: TestAccount | undefined;
  let rx: WebhookReceiver | undefined;
  const S = (): RunningService => { if (!svc) throw new Error('no service'); return svc; };
  const A = (): TestAccount => { if (!acct) throw new Error('no account'); return acct; };
  const R = (): WebhookReceiver => { if (!rx) throw new Error('no receiver'); return rx; };
  const base = (): string => `${S().app}/api/v1/tenants/${A().tenantId}/notification-channels`;
  const send = (method: string, url: string, headers: Record<string, string>, body?: unknown) => call(url, {
    method, headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const asAdmin = (method: string, url: string, body?: unknown) => send(method, url, { 'X-API-Key': A().key }, body);
  const create = async (body: Record<string, unknown>): Promise<ChannelBody> => {
    const r = await asAdmin('POST', base(), body);
    assert.equal(r.status, 201, r.text);
    return (r.json as { notification_channel: ChannelBody }).notification_channel;
  };

  before(async () => {
    svc = await startService();
    acct = await newAccount(svc, { tier: 'team' });
    rx = await startReceiver();
  });
  after(async () => {
    await rx?.close();
    await svc?.stop();
  });

  void it('creates, lists, reads, updates and deletes a channel; secrets are write-only', async () => {
    const c = await create({ type: 'webhook', name: 'pager', url: `${R().url}/hook`, headers: { Authorization: 'Bearer s3cret' } });
    assert.match(c.id, /^nch_/);
    assert.deepEqual([c.type, c.name, c.url, c.headers, c.send_resolved], ['webhook', 'pager', `${R().url}/hook`, { Authorization: '***' }, true]);
    const list = await asAdmin('GET', base());
    assert.deepEqual((list.json as { notification_channels: ChannelBody[] }).notification_channels.map((x) => x.id), [c.id]);
    const one = await asAdmin('GET', `${base()}/${c.id}`);
    assert.equal((one.json as { notification_channel: ChannelBody }).notification_channel.last_delivery, null);

    // GET, change one field, PUT it all back: the redacted header keeps its stored value.
    const put = await asAdmin('PUT', `${base()}/${c.id}`, { ...c, name: 'pager-2', send_resolved: false });
    assert.equal(put.status, 200, put.text);
    const updated = (put.json as { notification_channel: ChannelBody }).notification_channel;
    assert.deepEqual([updated.name, updated.send_resolved], ['pager-2', false]);
    const before = R().received.length;
    const test = await asAdmin('POST', `${base()}/${c.id}/test`);
    assert.deepEqual(test.json, { delivered: true, status: 200 });
    const got = await R().waitFor(before + 1);
    assert.equal(got[before]?.headers.authorization, 'Bearer s3cret', 'the stored secret, not ***');

    assert.equal((await asAdmin('DELETE', `${base()}/${c.id}`)).status, 204);
    assert.equal((await asAdmin('GET', `${base()}/${c.id}`)).status, 404);
    assert.equal((await asAdmin('DELETE', `${base()}/${c.id}`)).status, 404);
  });

  void it('refuses bad bodies with a 400 that names the field', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ type: 'pagerduty', name: 'x', url: 'http://a/' }, /type must be one of webhook, alertmanager, slack/],
      [{ type: 'webhook', name: 'x', url: 'ftp://a/' }, /url must be http or https/],
      [{ type: 'webhook', name: 'x' }, /url is required/],
      [{ type: 'slack', name: 'x', url: 'https://a/', headers: { Host: 'b' } }, /Host is set by Sightline/],
    ];
    for (const [body, detail] of cases) {
      const r = await asAdmin('POST', base(), body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match((r.json as { detail: string }).detail, detail);
    }
  });

  void it('writes need scope admin or a member\'s session; a read key and a viewer may only read; other tenants see nothing', async () => {
    const keyReply = await asAdmin('POST', `${S().app}/api/v1/tenants/${A().tenantId}/keys`, { name: 'reader', scopes: ['read'] });
    assert.equal(keyReply.status, 201, keyReply.text);
    const readKey = (keyReply.json as { api_key: { key: string } }).api_key.key;
    const c = await create({ type: 'webhook', name: 'shared', url: `${R().url}/shared` });
    const asReader = { 'X-API-Key': readKey };
    assert.equal((await send('GET', `${base()}/${c.id}`, asReader)).status, 200);
    const refused = await send('POST', base(), asReader, { type: 'webhook', name: 'x', url: 'http://a/' });
    assert.equal(refused.status, 403);
    assert.match(refused.text, /required scope: admin/);
    assert.equal((await send('POST', `${base()}/${c.id}/test`, asReader)).status, 403);

    const member = await sessionOf(S(), await addUser(S(), A().key, 'member'));
    const viewer = await sessionOf(S(), await addUser(S(), A().key, 'viewer'));
    const made = await send('POST', base(), bearer(member), { type: 'slack', name: 'by member', url: `${R().url}/slack/T1/B1/tok` });
    assert.equal(made.status, 201, made.text);
    assert.equal((await send('GET', base(), bearer(viewer))).status, 200);
    assert.equal((await send('POST', base(), bearer(viewer), { type: 'webhook', name: 'x', url: 'http://a/' })).status, 403);

    const other = await newAccount(S(), { tier: 'team' });
    assert.equal((await send('GET', `${base()}/${c.id}`, { 'X-API-Key': other.key })).status, 403, 'another tenant\'s key');
    const theirs = await send('GET', `${S().app}/api/v1/tenants/${other.tenantId}/notification-channels/${c.id}`, { 'X-API-Key': other.key });
    assert.equal(theirs.status, 404, 'a channel of another tenant is not found under one\'s own');
  });

  void it('test sends the channel\'s format: a v4 webhook payload, a Slack message; a failing receiver is reported', async () => {
    const hook = await create({ type: 'webhook', name: 'hook', url: `${R().url}/t/hook` });
    const before = R().received.length;
    assert.deepEqual((await asAdmin('POST', `${base()}/${hook.id}/test`)).json, { delivered: true, status: 200 });
    const p = (await R().waitFor(before + 1))[before]?.body as { version: string; status: string; receiver: string; alerts: { labels: Record<string, string> }[] };
    assert.deepEqual([p.version, p.status, p.receiver, p.alerts[0]?.labels.alertname], ['4', 'firing', 'hook', 'SightlineTestNotification']);

    const slack = await create({ type: 'slack', name: 'chat', url: `${R().url}/services/T1/B1/tok` });
    await asAdmin('POST', `${base()}/${slack.id}/test`);
    const m = (await R().waitFor(before + 2))[before + 1]?.body as { text: string; blocks: unknown[] };
    assert.equal(m.text, '🔥 [FIRING:1] SightlineTestNotification');
    assert.ok(m.blocks.length >= 2);
    assert.equal(slack.url, `${R().url}/services/T1/B1/***`, 'the Slack token is not shown');

    R().respond = (_n, req) => (req.path === '/t/down' ? 503 : 200);
    const down = await create({ type: 'webhook', name: 'down', url: `${R().url}/t/down` });
    const r = await asAdmin('POST', `${base()}/${down.id}/test`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { delivered: false, status: 503, error: 'HTTP 503: status 503' });
    R().respond = () => 200;
  });

  void it('test reaches the real Alertmanager, which lists the test alert under our fingerprint', { skip: alertmanagerPresent() ? false : ALERTMANAGER_MISSING }, async () => {
    const am = await startAlertmanager();
    try {
      const c = await create({ type: 'alertmanager', name: 'am', url: am.url });
      assert.deepEqual((await asAdmin('POST', `${base()}/${c.id}/test`)).json, { delivered: true, status: 200 });
      const [alert] = await am.alerts('alertname="SightlineTestNotification"');
      assert.ok(alert, 'Alertmanager has the test alert');
      assert.deepEqual(alert.labels, { alertname: 'SightlineTestNotification', channel: 'am', severity: 'none', tenant: A().tenantId });
      assert.equal(alert.fingerprint, labelsFingerprint(alert.labels));
      const ends = Date.parse(alert.endsAt) - Date.now();
      assert.ok(ends > 0 && ends <= 5 * 60_000 + 5000, `a test alert ends by itself within 5 minutes (${alert.endsAt})`);
    } finally {
      await am.stop();
    }
  });

  void it('/metrics shows notifications by channel type and outcome', async () => {
    const r = await call(`${S().app}/metrics`, { headers: { Authorization: `Bearer ${S().adminToken}` } });
    assert.equal(r.status, 200);
    for (const channel of ['webhook', 'alertmanager', 'slack']) {
      for (const outcome of ['sent', 'retry', 'failed']) {
        assert.match(r.text, new RegExp(`^sightline_notifications_total\\{channel="${channel}",outcome="${outcome}"\\} \\d+$`, 'm'));
      }
    }
  });
});
