// The three payload builders against their documented shapes: Alertmanager's webhook payload version 4
// (template.Data + version/groupKey/truncatedAlerts), Alertmanager API v2 postable alerts, a Slack incoming-webhook
// message; plus the outbox row → request step with send_resolved.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AlertNotice } from '../../notify-model.js';
import type { NotificationChannel } from '../../../stores/control/notification-records.js';
import { webhookPayload } from './webhook.js';
import { alertsEndpoint, firingEndsAt, labelName, postableAlerts } from './alertmanager.js';
import { escapeMrkdwn, SLACK_MAX_ALERTS, slackMessage } from './slack.js';
import { buildRequest } from '../request.js';
import { fingerprint as labelsFingerprint } from '../../engine/labels.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function notice(status: 'firing' | 'resolved', service: string, over: Partial<AlertNotice['alert']> = {}): AlertNotice {
  return {
    tenantId: 'ten_1', detectorId: 'det_1', channelIds: ['nch_1'], status,
    generatorUrl: `https://sightline.example/app/alerts?detector=det_1&service=${service}`,
    alert: {
      fingerprint: labelsFingerprint({ alertname: 'Errors high', service }), detectorId: 'det_1', tenantId: 'ten_1',
      state: status, labels: { service, alertname: 'Errors high', detector: 'det_1', tenant: 'ten_1', team: 'pay' },
      annotations: { summary: `Errors high on ${service}`, runbook_url: 'https://runbooks.example/errors' },
      startsAtMs: T0, endsAtMs: status === 'resolved' ? T0 + 300_000 : null, value: 12, ...over,
    },
  };
}

const channel = (over: Partial<NotificationChannel> = {}): NotificationChannel => ({
  id: 'nch_1', tenantId: 'ten_1', accountId: 'acc_1', type: 'webhook', name: 'on-call', url: 'http://127.0.0.1:9/hook',
  headers: { Authorization: 'Bearer t' }, sendResolved: true, createdAt: T0, updatedAt: T0, ...over,
});

void describe('webhook payload (Alertmanager version 4)', () => {
  void it('has exactly the documented fields, firing endsAt as Go\'s zero time, common labels and annotations', () => {
    const p = webhookPayload('on-call', [notice('firing', 'api'), notice('resolved', 'web')]);
    assert.deepEqual(Object.keys(p).sort(), [
      'alerts', 'commonAnnotations', 'commonLabels', 'externalURL', 'groupKey', 'groupLabels', 'receiver', 'status',
      'truncatedAlerts', 'version',
    ]);
    assert.deepEqual({ ...p, alerts: [] }, {
      version: '4', groupKey: '{}/{detector="det_1"}:{alertname="Errors high"}', truncatedAlerts: 0,
      status: 'firing', receiver: 'on-call', groupLabels: { alertname: 'Errors high' },
      commonLabels: { alertname: 'Errors high', detector: 'det_1', team: 'pay', tenant: 'ten_1' },
      commonAnnotations: { runbook_url: 'https://runbooks.example/errors' },
      externalURL: 'https://sightline.example/', alerts: [],
    });
    assert.deepEqual(p.alerts[0], {
      status: 'firing',
      labels: { alertname: 'Errors high', detector: 'det_1', service: 'api', team: 'pay', tenant: 'ten_1' },
      annotations: { runbook_url: 'https://runbooks.example/errors', summary: 'Errors high on api' },
      startsAt: '2026-01-01T12:00:00.000Z', endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'https://sightline.example/app/alerts?detector=det_1&service=api',
      fingerprint: labelsFingerprint({ alertname: 'Errors high', service: 'api' }),
    });
    assert.deepEqual([p.alerts[1]?.status, p.alerts[1]?.endsAt], ['resolved', '2026-01-01T12:05:00.000Z']);
  });

  void it('is resolved only when every alert of the group is', () => {
    assert.equal(webhookPayload('x', [notice('resolved', 'api'), notice('resolved', 'web')]).status, 'resolved');
  });
});

void describe('Alertmanager API v2 postable alerts', () => {
  const cadence = { intervalS: 60, repeatIntervalS: 14_400 };

  void it('posts to <url>/api/v2/alerts whatever the base path and trailing slash', () => {
    assert.equal(alertsEndpoint('http://am:9093'), 'http://am:9093/api/v2/alerts');
    assert.equal(alertsEndpoint('http://am:9093/'), 'http://am:9093/api/v2/alerts');
    assert.equal(alertsEndpoint('https://proxy.example/alertmanager/'), 'https://proxy.example/alertmanager/api/v2/alerts');
  });

  void it('has labels, annotations, startsAt, endsAt and generatorURL only; firing ends after the next repeat', () => {
    const sentAt = T0 + 60_000;
    const [firing, resolved] = postableAlerts([notice('firing', 'api'), notice('resolved', 'web')], sentAt, cadence);
    assert.ok(firing && resolved);
    assert.deepEqual(Object.keys(firing).sort(), ['annotations', 'endsAt', 'generatorURL', 'labels', 'startsAt']);
    assert.equal(firing.startsAt, '2026-01-01T12:00:00.000Z');
    assert.equal(firing.endsAt, new Date(sentAt + (14_400 + 180) * 1000).toISOString());
    assert.equal(firingEndsAt(sentAt, cadence) - sentAt, 14_580_000, 'repeat interval plus three evaluations');
    assert.equal(resolved.endsAt, '2026-01-01T12:05:00.000Z', 'a resolved alert ends when it resolved');
  });

  void it('rewrites label names Alertmanager would refuse (model.LabelName.IsValid)', () => {
    assert.deepEqual(['k8s.pod.name', '1st', 'ok_name', 'a-b'].map(labelName), ['k8s_pod_name', '_1st', 'ok_name', 'a_b']);
    const [a] = postableAlerts([notice('firing', 'api', { labels: { alertname: 'X', 'k8s.pod.name': 'p1' } })], T0, cadence);
    assert.deepEqual(a?.labels, { alertname: 'X', k8s_pod_name: 'p1' });
  });
});

void describe('Slack incoming-webhook message', () => {
  void it('has a fallback text and blocks: a 🔥 header, one section per alert with summary, labels and links', () => {
    const m = slackMessage([notice('firing', 'api'), notice('firing', 'web')]);
    assert.equal(m.text, '🔥 [FIRING:2] Errors high');
    assert.deepEqual(m.blocks[0], { type: 'section', text: { type: 'mrkdwn', text: '🔥 *[FIRING:2] Errors high*' } });
    assert.deepEqual(m.blocks[1], {
      type: 'section', text: {
        type: 'mrkdwn',
        text: '🔥 *Errors high on api*\n`service=api` `team=pay`\n'
          + '<https://sightline.example/app/alerts?detector=det_1&service=api|Open in Sightline> · <https://runbooks.example/errors|Runbook>',
      },
    });
    assert.deepEqual(m.blocks.at(-1), { type: 'context', elements: [{ type: 'mrkdwn', text: 'tenant `ten_1`' }] });
  });

  void it('says ✅ RESOLVED when all are resolved, escapes mrkdwn, and counts alerts past the shown ones', () => {
    assert.equal(slackMessage([notice('resolved', 'api')]).text, '✅ [RESOLVED] Errors high');
    assert.equal(escapeMrkdwn('a < b && c > d'), 'a &lt; b &amp;&amp; c &gt; d');
    const many = Array.from({ length: SLACK_MAX_ALERTS + 5 }, (_, i) => notice('firing', `s${i}`));
    const m = slackMessage(many);
    assert.equal(m.blocks.length, 1 + SLACK_MAX_ALERTS + 1);
    assert.match(JSON.stringify(m.blocks.at(-1)), /…and 5 more/);
    assert.ok(m.blocks.length <= 50, 'Slack takes at most 50 blocks');
  });
});

void describe('outbox row → request', () => {
  const cadence = { intervalS: 60, repeatIntervalS: 14_400 };
  const both = [notice('firing', 'api'), notice('resolved', 'web')];

  void it('sends each type its own format to its own URL with the channel headers', () => {
    const w = buildRequest(channel(), both, T0, cadence);
    assert.equal(w?.url, 'http://127.0.0.1:9/hook');
    assert.deepEqual(w.headers, { Authorization: 'Bearer t' });
    assert.equal((w.body as { version: string }).version, '4');
    const am = buildRequest(channel({ type: 'alertmanager', url: 'http://am:9093' }), both, T0, cadence);
    assert.equal(am?.url, 'http://am:9093/api/v2/alerts');
    assert.ok(Array.isArray(am.body));
    const s = buildRequest(channel({ type: 'slack', url: 'https://hooks.slack.example/services/T/B/x' }), both, T0, cadence);
    assert.equal((s?.body as { text: string }).text, '🔥 [FIRING:1] Errors high');
  });

  void it('leaves resolved notices out when send_resolved is false, and sends nothing when none is left', () => {
    const quiet = channel({ sendResolved: false });
    const r = buildRequest(quiet, both, T0, cadence);
    assert.deepEqual((r?.body as { alerts: { status: string }[] }).alerts.map((a) => a.status), ['firing']);
    assert.equal(buildRequest(quiet, [notice('resolved', 'web')], T0, cadence), null);
  });
});
