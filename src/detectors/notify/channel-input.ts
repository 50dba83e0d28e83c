// A notification channel as the API takes and shows it (DESIGN §8): `{type, name, url, headers?, send_resolved?}`.
// Every refusal is a 400 naming the field. Secrets stay write-only: header values and a URL's password (and a
// Slack webhook's token, the last segment of its path) are shown as `***`, and sending a shown value back unchanged
// keeps the stored one, so a client can GET, edit one field and PUT the whole channel.
import { errors } from '../../errors.js';
import { CHANNEL_TYPES, type ChannelPatch, type ChannelType, type NotificationChannel } from '../../stores/control/notification-records.js';

export const REDACTED = '***';
const MAX_NAME = 256;
const MAX_URL = 2048;
const MAX_HEADERS = 32;
const MAX_HEADER_VALUE = 4096;
/** RFC 9110 §5.6.2 token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Set by the sender or by HTTP itself. */
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'transfer-encoding', 'connection', 'user-agent']);
const FIELDS = new Set(['type', 'name', 'url', 'headers', 'send_resolved']);
/** Shown by GET and ignored when sent back, so a GET body can be PUT as it is. */
const READ_ONLY = new Set(['id', 'tenant_id', 'created_at', 'updated_at', 'last_delivery']);

function channelType(v: unknown): ChannelType {
  const t = CHANNEL_TYPES.find((x) => x === v);
  if (!t) throw errors.badRequest(`type must be one of ${CHANNEL_TYPES.join(', ')}`);
  return t;
}

function name(v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') throw errors.badRequest('name is required');
  if (v.trim().length > MAX_NAME) throw errors.badRequest(`name must be at most ${MAX_NAME} characters`);
  return v.trim();
}

/** An absolute http(s) URL. */
export function channelUrl(v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') throw errors.badRequest('url is required');
  const text = v.trim();
  if (text.length > MAX_URL) throw errors.badRequest(`url must be at most ${MAX_URL} characters`);
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw errors.badRequest(`url is not a URL: ${JSON.stringify(text)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw errors.badRequest(`url must be http or https, not ${u.protocol.replace(/:$/, '')}`);
  return u.toString();
}

function headers(v: unknown): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw errors.badRequest('headers must be an object of header names to values');
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) throw errors.badRequest(`headers takes at most ${MAX_HEADERS} entries`);
  const out: Record<string, string> = {};
  for (const [k, x] of entries) {
    if (!TOKEN.test(k)) throw errors.badRequest(`headers: ${JSON.stringify(k)} is not a header name`);
    if (RESERVED_HEADERS.has(k.toLowerCase())) throw errors.badRequest(`headers: ${k} is set by Sightline`);
    if (typeof x !== 'string') throw errors.badRequest(`headers.${k} must be a string`);
    if (/[\r\n\0]/.test(x) || x.length > MAX_HEADER_VALUE) throw errors.badRequest(`headers.${k} must be one line of at most ${MAX_HEADER_VALUE} characters`);
    out[k] = x;
  }
  return out;
}

function sendResolved(v: unknown): boolean {
  if (typeof v !== 'boolean') throw errors.badRequest('send_resolved must be true or false');
  return v;
}

function noUnknownFields(body: Record<string, unknown>): void {
  const unknown = Object.keys(body).filter((k) => !FIELDS.has(k) && !READ_ONLY.has(k));
  if (unknown.length > 0) throw errors.badRequest(`unknown field(s): ${unknown.join(', ')} (a channel has ${[...FIELDS].join(', ')})`);
}

export interface ChannelInput {
  type: ChannelType;
  name: string;
  url: string;
  headers: Record<string, string>;
  sendResolved: boolean;
}

/** POST body → a new channel (send_resolved defaults to true, as in Alertmanager). */
export function parseNewChannel(body: Record<string, unknown>): ChannelInput {
  noUnknownFields(body);
  return {
    type: channelType(body.type), name: name(body.name), url: channelUrl(body.url), headers: headers(body.headers),
    sendResolved: body.send_resolved === undefined ? true : sendResolved(body.send_resolved),
  };
}

/** PUT body → the fields it changes; shown (redacted) secrets sent back unchanged keep the stored ones. */
export function parseChannelPatch(body: Record<string, unknown>, stored: NotificationChannel): ChannelPatch {
  noUnknownFields(body);
  const patch: ChannelPatch = {};
  if (body.type !== undefined) patch.type = channelType(body.type);
  if (body.name !== undefined) patch.name = name(body.name);
  if (body.url !== undefined) {
    const shown = shownUrl(stored.type, stored.url);
    patch.url = body.url === shown ? stored.url : channelUrl(body.url);
  }
  if (body.headers !== undefined) {
    const given = headers(body.headers);
    patch.headers = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, v === REDACTED ? (stored.headers[k] ?? v) : v]));
  }
  if (body.send_resolved !== undefined) patch.sendResolved = sendResolved(body.send_resolved);
  return patch;
}

/** The URL as shown: password and, for Slack, the webhook token (the path's last segment) as `***`. */
export function shownUrl(type: ChannelType, url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (u.password) u.password = REDACTED;
  if (type === 'slack') {
    const parts = u.pathname.split('/');
    if (parts.length > 2 && parts.at(-1)) u.pathname = [...parts.slice(0, -1), REDACTED].join('/');
    u.search = '';
  }
  return u.toString().replace(/%2A%2A%2A/g, REDACTED);
}

export function shownHeaders(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(h).map((k) => [k, REDACTED]));
}
