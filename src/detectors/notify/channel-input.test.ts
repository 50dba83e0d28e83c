// Channel bodies of the API (channel-input.ts): a table of refusals, defaults, and write-only secrets.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../../errors.js';
import type { NotificationChannel } from '../../stores/control/notification-records.js';
import { parseChannelPatch, parseNewChannel, shownHeaders, shownUrl } from './channel-input.js';

const ok = { type: 'webhook', name: 'pager', url: 'https://hooks.example/x' };

void describe('notification channel bodies', () => {
  void it('a minimal body gets send_resolved true and no headers', () => {
    assert.deepEqual(parseNewChannel(ok), { type: 'webhook', name: 'pager', url: 'https://hooks.example/x', headers: {}, sendResolved: true });
  });

  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['an unknown type', { ...ok, type: 'email' }, /type must be one of webhook, alertmanager, slack/],
    ['no name', { ...ok, name: ' ' }, /name is required/],
    ['no url', { type: 'slack', name: 'x' }, /url is required/],
    ['a relative url', { ...ok, url: '/hook' }, /url is not a URL/],
    ['a file url', { ...ok, url: 'file:///etc/passwd' }, /url must be http or https, not file/],
    ['headers as a list', { ...ok, headers: ['a'] }, /headers must be an object/],
    ['a header name with a space', { ...ok, headers: { 'X Bad': 'v' } }, /is not a header name/],
    ['a header Sightline sets', { ...ok, headers: { 'Content-Type': 'text/plain' } }, /Content-Type is set by Sightline/],
    ['a header value with a newline', { ...ok, headers: { 'X-A': 'a\r\nb' } }, /must be one line/],
    ['send_resolved as text', { ...ok, send_resolved: 'yes' }, /send_resolved must be true or false/],
    ['a misspelt field', { ...ok, sendResolved: false }, /unknown field\(s\): sendResolved/],
  ];
  for (const [what, body, detail] of refused) {
    void it(`refuses ${what} with a 400 naming it`, () => {
      assert.throws(() => parseNewChannel(body), (e: unknown) => e instanceof ServiceError && e.status === 400 && detail.test(e.detail));
    });
  }

  void it('shows secrets as *** and keeps the stored ones when they come back unchanged', () => {
    const stored: NotificationChannel = {
      id: 'nch_1', tenantId: 't', accountId: 'a', type: 'slack', name: 's', url: 'https://user:pw@hooks.slack.example/services/T1/B2/tok3n?x=1',
      headers: { Authorization: 'Bearer s3cret' }, sendResolved: true, createdAt: 0, updatedAt: 0,
    };
    const url = shownUrl(stored.type, stored.url);
    assert.equal(url, 'https://user:***@hooks.slack.example/services/T1/B2/***');
    assert.deepEqual(shownHeaders(stored.headers), { Authorization: '***' });
    assert.deepEqual(parseChannelPatch({ url, headers: { Authorization: '***', 'X-New': 'v' }, name: 'renamed' }, stored), {
      name: 'renamed', url: stored.url, headers: { Authorization: 'Bearer s3cret', 'X-New': 'v' },
    });
    assert.deepEqual(parseChannelPatch({ url: 'https://hooks.slack.example/services/T1/B2/other' }, stored), {
      url: 'https://hooks.slack.example/services/T1/B2/other',
    });
    assert.equal(shownUrl('webhook', 'http://127.0.0.1:9/hook?token=a'), 'http://127.0.0.1:9/hook?token=a');
  });
});
