// The `slack` channel: a Slack incoming webhook message (https://api.slack.com/messaging/webhooks): `text` is the
// notification's fallback line, `blocks` the Block Kit layout (https://api.slack.com/reference/block-kit/blocks:
// at most 50 blocks, a section's text at most 3000 characters). Text is mrkdwn, whose only escapes are &, < and >
// (https://api.slack.com/reference/surfaces/formatting#escaping). One message carries one evaluation of one detector.
import type { AlertNotice } from '../../notify-model.js';
import { alertName, groupStatus } from './common.js';

export interface SlackBlock {
  type: 'section' | 'context' | 'divider';
  text?: { type: 'mrkdwn'; text: string };
  elements?: { type: 'mrkdwn'; text: string }[];
}

export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
}

/** Alerts shown one by one; the rest are counted (keeps the message well under Slack's 50 blocks). */
export const SLACK_MAX_ALERTS = 20;
const MAX_SECTION = 3000;

/** mrkdwn escaping: the control characters &, <, > only. */
export function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function clip(s: string, max = MAX_SECTION): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

const icon = (status: 'firing' | 'resolved'): string => (status === 'firing' ? '🔥' : '✅');

/** Labels other than the ones every message has, as `` `k=v` `` pairs. */
function labelLine(labels: Record<string, string>): string {
  const shown = Object.entries(labels).filter(([k]) => k !== 'alertname' && k !== 'detector' && k !== 'tenant')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return shown.map(([k, v]) => `\`${escapeMrkdwn(k)}=${escapeMrkdwn(v)}\``).join(' ');
}

function alertSection(n: AlertNotice): SlackBlock {
  const a = n.alert;
  const lines = [`${icon(n.status)} *${escapeMrkdwn(a.annotations.summary ?? a.labels.alertname ?? 'alert')}*`];
  if (a.annotations.description) lines.push(escapeMrkdwn(a.annotations.description));
  const labels = labelLine(a.labels);
  if (labels) lines.push(labels);
  const links = [];
  if (n.generatorUrl) links.push(`<${n.generatorUrl}|Open in Sightline>`);
  if (a.annotations.runbook_url) links.push(`<${a.annotations.runbook_url}|Runbook>`);
  if (links.length > 0) lines.push(links.join(' · '));
  return { type: 'section', text: { type: 'mrkdwn', text: clip(lines.join('\n')) } };
}

export function slackMessage(notices: readonly AlertNotice[]): SlackMessage {
  const status = groupStatus(notices);
  const name = alertName(notices);
  const firing = notices.filter((n) => n.status === 'firing').length;
  const head = status === 'firing' ? `[FIRING:${firing}] ${name}` : `[RESOLVED] ${name}`;
  const tenant = notices[0]?.tenantId;
  const blocks: SlackBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: clip(`${icon(status)} *${escapeMrkdwn(head)}*`) } },
    ...notices.slice(0, SLACK_MAX_ALERTS).map(alertSection),
  ];
  const more = notices.length - SLACK_MAX_ALERTS;
  const context = [tenant ? `tenant \`${escapeMrkdwn(tenant)}\`` : '', more > 0 ? `…and ${more} more` : ''].filter((x) => x !== '');
  if (context.length > 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: context.join(' · ') }] });
  return { text: `${icon(status)} ${head}`, blocks };
}
