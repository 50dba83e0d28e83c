// Notification channels (DESIGN §8 "Notifications"): `…/tenants/<t>/notification-channels` (GET list, POST create),
// `…/<id>` (GET, PUT, DELETE) and `POST …/<id>/test`, which sends a test notice at once and says whether the
// receiver took it. Reads take scope `read`; writes take scope `admin` or a member's session (DESIGN §8 "Writes need
// scope admin or a member's session"; a viewer's session is refused by the guard). Channels count against no
// ceiling. A channel a detector names is not deleted (409 naming the detectors): an alert must not go nowhere.
import type { Router } from '../front-doors/router.js';
import { readJsonObject } from '../front-doors/json-body.js';
import { sendEmpty, sendJson } from '../front-doors/reply.js';
import type { AppGrant } from '../auth/sessions.js';
import type { Delivery, NotificationChannel } from '../stores/control/notification-records.js';
import { errors } from '../errors.js';
import { CONTENT_WRITE, guarded } from './tenant-route.js';
import type { ResourceApiDeps } from './saved-searches-api.js';
import { parseChannelPatch, parseNewChannel, shownHeaders, shownUrl } from '../detectors/notify/channel-input.js';
import { buildRequest } from '../detectors/notify/request.js';
import type { Sender } from '../detectors/notify/sender.js';
import { TEST_CADENCE, testNotice } from '../detectors/notify/test-notice.js';

export interface ChannelApiDeps extends ResourceApiDeps {
  /** Posts the test notice (the delivery worker's sender). */
  send: Sender;
}

/** API keys need scope `admin` to write; a session passed the guard as a member or admin (viewers are refused there). */
export function requireWriter(grant: AppGrant): void {
  if (!grant.session && !grant.key.scopes.includes('admin')) throw errors.missingScope('admin');
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function renderDelivery(d: Delivery | null): Record<string, unknown> | null {
  if (!d) return null;
  return { state: d.state, attempts: d.attempts, created_at: iso(d.createdAt), done_at: iso(d.doneAt), error: d.lastError };
}

function render(c: NotificationChannel, last?: Delivery | null): Record<string, unknown> {
  return {
    id: c.id, tenant_id: c.tenantId, type: c.type, name: c.name, url: shownUrl(c.type, c.url), headers: shownHeaders(c.headers),
    send_resolved: c.sendResolved, created_at: iso(c.createdAt), updated_at: iso(c.updatedAt),
    ...(last === undefined ? {} : { last_delivery: renderDelivery(last) }),
  };
}

export function registerNotificationChannelRoutes(router: Router, deps: ChannelApiDeps): void {
  const base = '/api/v1/tenants/:tenant/notification-channels';
  const own = async (grant: AppGrant, id: string, path: string): Promise<NotificationChannel> => {
    const c = await deps.store.getChannel(id);
    if (!c || c.tenantId !== grant.tenant.id) throw errors.notFound(path);
    return c;
  };

  router.on('GET', base, guarded(deps, 'read', true, async (ctx, grant) => {
    const list = await deps.store.listChannels(grant.tenant.id);
    sendJson(ctx.res, 200, { notification_channels: list.map((c) => render(c)) });
  }));

  router.on('POST', base, guarded(deps, 'read', true, async (ctx, grant) => {
    requireWriter(grant);
    const input = parseNewChannel(await readJsonObject(ctx));
    const created = await deps.store.createChannel({ ...input, tenantId: grant.tenant.id, accountId: grant.account.id });
    sendJson(ctx.res, 201, { notification_channel: render(created) });
  }, CONTENT_WRITE));

  router.on('GET', `${base}/:id`, guarded(deps, 'read', true, async (ctx, grant) => {
    const c = await own(grant, ctx.params.id ?? '', ctx.path);
    sendJson(ctx.res, 200, { notification_channel: render(c, await deps.store.lastDelivery(c.id)) });
  }));

  router.on('PUT', `${base}/:id`, guarded(deps, 'read', true, async (ctx, grant) => {
    requireWriter(grant);
    const c = await own(grant, ctx.params.id ?? '', ctx.path);
    const patch = parseChannelPatch(await readJsonObject(ctx), c);
    const updated = await deps.store.updateChannel(c.id, patch);
    if (!updated) throw errors.notFound(ctx.path);
    sendJson(ctx.res, 200, { notification_channel: render(updated) });
  }, CONTENT_WRITE));

  router.on('DELETE', `${base}/:id`, guarded(deps, 'read', true, async (ctx, grant) => {
    requireWriter(grant);
    const c = await own(grant, ctx.params.id ?? '', ctx.path);
    const users = await deps.store.detectorsUsingChannel(c.id);
    if (users.length > 0) throw errors.conflict(`channel ${c.id} is used by detector(s) ${users.join(', ')}: remove it from them first`);
    if (!(await deps.store.deleteChannel(c.id))) throw errors.notFound(ctx.path);
    sendEmpty(ctx.res, 204);
  }, CONTENT_WRITE));

  router.on('POST', `${base}/:id/test`, guarded(deps, 'read', true, async (ctx, grant) => {
    requireWriter(grant);
    const c = await own(grant, ctx.params.id ?? '', ctx.path);
    const now = Date.now();
    const host = ctx.req.headers.host ?? 'localhost';
    const req = buildRequest(c, [testNotice(c, now, `http://${host}/`)], now, TEST_CADENCE);
    if (!req) throw errors.badRequest('the channel takes no notice'); // cannot happen: a test notice is firing
    const result = await deps.send(req);
    sendJson(ctx.res, 200, result.ok
      ? { delivered: true, status: result.status }
      : { delivered: false, ...(result.status === undefined ? {} : { status: result.status }), error: result.error });
  }, CONTENT_WRITE));
}
