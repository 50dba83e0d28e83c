// Wires the parts into a running service: planes, doors, timers; listen and stop (DESIGN §1, §2).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import type { ServiceClock } from './clock.js';
import type { ControlStore } from './stores/control/control-store.js';
import type { TelemetryStore } from './stores/telemetry/telemetry-store.js';
import type { Wal } from './ingest/wal.js';
import { KeyResolver } from './auth/key-resolver.js';
import { SessionAuthority } from './auth/sessions.js';
import { AiLedger } from './metering/ai-ledger.js';
import { RefusalCounter } from './observability/refusals.js';
import { renderWalMetrics } from './observability/wal-metrics.js';
import { Metering } from './metering/metering.js';
import { Admission } from './ingest/admission.js';
import { IngestPipeline } from './ingest/pipeline.js';
import { walSink } from './ingest/wal-sink.js';
import { buildIngestPlane } from './planes/ingest-plane.js';
import { buildAppPlane } from './planes/app-plane.js';
import { LiveTailSessions } from './query/tail-api.js';
import { registerWriteRoutes } from './planes/write-routes.js';
import { appDoor, ingestDoor, type Plane } from './front-doors/doors.js';
import { HttpForwarder } from './front-doors/forward.js';
import { FORWARDED_TO_APP, normalizePath } from './front-doors/routing-table.js';
import { PlatformLimiter, TenantLimiters } from './limits/token-bucket.js';
import { QueryRateLimiter } from './limits/query-rate.js';
import { effectivePlan } from './limits/plans.js';
import { errors } from './errors.js';
import { sweepTiers } from './lifecycle/sweep.js';
import { RetentionJob } from './lifecycle/retention.js';
import { bootstrapFirstAccount } from './bootstrap.js';
import { BUILT_APP_DIR, WebAppPlane, isBrowserRoot } from './planes/web-plane.js';
import { createNotifications } from './detectors/notify/notifications.js';
import { DetectorEngine } from './detectors/engine/engine.js';
import { KINDS, catalog } from './detectors/kinds/index.js';
import { OpenAiClient } from './ai/llm/openai-client.js';
import { joinCluster } from './cluster/cluster.js';

const SESSION_ROWS_KEPT_MS = 30 * 86_400_000;
/** How long a stopping service keeps draining the WAL into the store before it leaves the rest for replay. */
const SHUTDOWN_DRAIN_MS = 4000;
/**
 * How long after a stop begins the telemetry store may go on compacting its file (issue 12 item 3): it stops within
 * this whatever the drain took, so SIGTERM still exits within 10 s (issue 12 item 6).
 */
const SHUTDOWN_COMPACT_BY_MS = 7500;

export interface ServiceDeps {
  config: Config;
  adminToken: string;
  clock: ServiceClock;
  control: ControlStore;
  telemetry: TelemetryStore;
  wal: Wal;
  print: (line: string) => void;
  log: (line: string) => void;
}

export interface Service {
  listen(): Promise<{ ingestUrl: string; appUrl: string }>;
  stop(): Promise<void>;
}

export function buildService(deps: ServiceDeps): Service {
  const { config, clock, control, telemetry, wal, log } = deps;
  const resolver = new KeyResolver(control, config.keyCacheTtlMs);
  const refusals = new RefusalCounter();
  // Split roles share limits through the control store (DESIGN §10); null in one process.
  const cluster = joinCluster(config, control, clock, log);
  const metering = new Metering(control, clock, log, cluster !== null);
  const admission = new Admission({
    clock, metering, platform: new PlatformLimiter(clock, config.platformRate), tenants: new TenantLimiters(clock),
    ...(cluster ? { share: () => cluster.membership.share(), volume: cluster.volume } : {}),
  });
  const pipeline = new IngestPipeline({ resolver, clock, admission, sink: walSink(wal), refusals, log });
  const queryRate = new QueryRateLimiter(clock);
  const sessionAuth = new SessionAuthority(control, clock, { idleMs: config.sessionIdleMs, maxMs: config.sessionMaxMs });
  const aiLedger = new AiLedger(metering, clock);
  // Alert notifications (DESIGN §8): the outbox worker runs where the app plane does.
  const notifications = createNotifications({ control, log, retryBaseMs: config.notifyRetryBaseMs, timeoutMs: config.notifyTimeoutMs });
  // Detectors (DESIGN §8): evaluated on service time whatever the tier, each query taken from the tenant's query rate
  // — the same limiter as the tenant API's (spec "Plans": alert evaluation is a read bounded by the query rate).
  let appBaseUrl = '';
  const detectorEngine = new DetectorEngine({
    control, telemetry, kinds: KINDS, notifier: notifications.notifier, clock, intervalMs: config.evalIntervalMs, log,
    appUrl: () => appBaseUrl,
    queryRate: (tenantId, account) => {
      const limitPerMin = effectivePlan(account).queryRatePerMin;
      const verdict = queryRate.admit(tenantId, limitPerMin);
      return verdict.ok ? verdict : { ok: false, retryAfterS: verdict.retryAfter, limitPerMin };
    },
  });
  const sweep = () => sweepTiers(control, clock);

  const ingestPlane = buildIngestPlane({
    pipeline, maxBodyBytes: config.maxBodyBytes, vercelDrainSecret: config.vercelDrainSecret, vercelVerifyToken: config.vercelVerifyToken,
  });
  const liveTail = new LiveTailSessions(cluster?.tailSlots);
  const appPlane = buildAppPlane({
    admin: { store: control, adminToken: deps.adminToken, clock, testClock: config.testClock, sweep, usage: metering, log },
    guard: {
      resolver, sessionAuth, clock, refusals, log,
      checkQueryRate: async (grant) => {
        const perMin = effectivePlan(grant.account).queryRatePerMin;
        const verdict = cluster ? await cluster.queryRate.admit(grant.tenant.id, perMin) : queryRate.admit(grant.tenant.id, perMin);
        if (!verdict.ok) throw errors.queryRate(verdict.retryAfter);
      },
    },
    telemetry, store: control, usage: metering, aiSpent: (account) => aiLedger.spentToday(account), refusals,
    planOf: (grant) => effectivePlan(grant.account),
    liveTail,
    moreMetrics: () => renderWalMetrics(wal.stats()) + notifications.metrics.render() + detectorEngine.metrics.render(),
    registerWrites: (router) => registerWriteRoutes(router, pipeline),
    notifySend: notifications.send,
    detectors: { kinds: KINDS, catalog, engine: detectorEngine, evalIntervalMs: config.evalIntervalMs },
    // The model is optional (DESIGN §9): without SIGHTLINE_LLM_URL there is no client, so nothing can call out.
    ai: {
      ledger: aiLedger,
      ...(config.llmUrl ? {
        llm: new OpenAiClient({ url: config.llmUrl, model: config.llmModel, timeoutMs: config.llmTimeoutMs, log, ...(config.llmApiKey ? { apiKey: config.llmApiKey } : {}) }),
      } : {}),
    },
  });

  // Split roles reach the other plane over HTTP (DESIGN §1); in one process the planes are called directly.
  const ingestSide: Plane = config.role === 'app' && config.ingestUpstream
    ? new HttpForwarder(config.ingestUpstream, (p) => ingestPlane.owns(p)) : ingestPlane;
  const appSide: Plane = config.role === 'ingest' && config.appUpstream
    ? new HttpForwarder(config.appUpstream, (p) => FORWARDED_TO_APP.has(normalizePath(p))) : appPlane;
  const onError = (e: unknown) => log(`unhandled: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  const servers: http.Server[] = [];
  const ingestServer = config.role !== 'app' ? http.createServer(ingestDoor(ingestSide, appSide, onError)) : null;
  const web = { plane: new WebAppPlane(BUILT_APP_DIR), isBrowserRoot };
  const appServer = config.role !== 'ingest' ? http.createServer(appDoor(appSide, ingestSide, onError, web)) : null;
  for (const s of [ingestServer, appServer]) {
    if (!s) continue;
    // A slow client cannot hold a socket forever (issue 2 item 8: slow clients).
    s.requestTimeout = 120_000;
    s.headersTimeout = 30_000;
    s.keepAliveTimeout = 65_000;
    servers.push(s);
  }

  const retention = new RetentionJob(control, telemetry, clock, log);
  const timers: NodeJS.Timeout[] = [];

  const listenOn = (server: http.Server | null, port: number): Promise<string> => new Promise((resolve, reject) => {
    if (!server) {
      resolve('');
      return;
    }
    server.once('error', reject);
    server.listen(port, config.host, () => {
      const addr = server.address() as AddressInfo;
      const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      resolve(`http://${host}:${addr.port}`);
    });
  });

  return {
    async listen() {
      await metering.start();
      await cluster?.membership.start(); // the first heartbeat before the first request: N is right from the start
      const ingestUrl = await listenOn(ingestServer, config.ingestPort);
      const appUrl = await listenOn(appServer, config.appPort);
      await bootstrapFirstAccount(control, clock.now(), ingestUrl || appUrl, deps.print);
      // The sweep runs at start-up and every SIGHTLINE_SWEEP_INTERVAL_MS (DESIGN §6 Trial).
      const runSweep = () => {
        sweep().then((t) => { if (t.length > 0) log(`sweep: ${t.length} trial(s) expired`); }, (e: unknown) => log(`sweep failed: ${String(e)}`));
        // Session rows stay a month past their maximum age (an old token still answers 401 Token expired), then go.
        control.deleteSessionsCreatedBefore(clock.now() - config.sessionMaxMs - SESSION_ROWS_KEPT_MS)
          .catch((e: unknown) => log(`session cleanup failed: ${String(e)}`));
      };
      runSweep();
      timers.push(setInterval(runSweep, config.sweepIntervalMs));
      timers.push(retention.schedule());
      if (config.role !== 'ingest') notifications.start();
      appBaseUrl = appUrl;
      if (config.role !== 'ingest') detectorEngine.start();
      deps.print(`sightline listening ingest=${ingestUrl || '-'} app=${appUrl || '-'}`);
      return { ingestUrl, appUrl };
    },
    async stop() {
      const stopStarted = performance.now();
      for (const t of timers) clearInterval(t);
      liveTail.closeAll(); // open live-tail streams end, so their connections do not hold the stop
      wal.endRoomWaits(); // bodies waiting for room in the WAL get their 429 now rather than hold the stop (wal-room.ts)
      // Stop accepting; in-flight requests finish (DESIGN §2 SIGTERM); idle keep-alive sockets close now.
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeIdleConnections();
      })));
      await detectorEngine.stop(); // evaluations in flight commit (with their notices) before delivery stops
      await notifications.stop(); // posts in flight are aborted and their rows handed back before the store closes
      // SIGTERM exits promptly after heavy ingest (issue 12 item 6): the drain gets SHUTDOWN_DRAIN_MS, and what it has
      // not written stays in the WAL, durable, for the next start's replay.
      await wal.close({ drainForMs: SHUTDOWN_DRAIN_MS });
      await metering.stop();
      await cluster?.membership.stop(); // leaving frees this process's share at once
      const compactWithinMs = Math.max(0, SHUTDOWN_COMPACT_BY_MS - (performance.now() - stopStarted));
      await telemetry.close({ compactWithinMs, report: deps.print });
      await control.close();
    },
  };
}
