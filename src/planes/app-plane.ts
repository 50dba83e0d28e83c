// The app plane (spec, App plane paths): metrics and replay writes, the tenant query API, project
// creation, the operator admin API and /metrics. Metric write paths join as their formats land.
import { Router } from '../front-doors/router.js';
import { RouterPlane } from './router-plane.js';
import { registerAdminRoutes, requireAdminToken, type AdminDeps } from '../admin/admin-api.js';
import { registerLogsRoutes } from '../query/logs-api.js';
import { registerLogsStatsRoutes } from '../query/logs-stats-api.js';
import { registerLogsStreamsRoutes } from '../query/logs-streams-api.js';
import { registerTracesRoutes } from '../query/traces-api.js';
import { registerKeysRoutes } from '../query/keys-api.js';
import { registerProjectsRoutes } from '../query/projects-api.js';
import { registerUsageRoutes } from '../query/usage-api.js';
import { registerReplayRoutes } from '../query/replay-api.js';
import { registerPrometheusRoutes } from '../query/prometheus-routes.js';
import { registerSavedSearchRoutes } from '../query/saved-searches-api.js';
import { registerDashboardRoutes } from '../query/dashboards-api.js';
import { registerNotificationChannelRoutes } from '../query/notification-channels-api.js';
import type { Sender } from '../detectors/notify/sender.js';
import { detectorChecks, registerDetectorRoutes, type DetectorServices } from '../detectors/api/detectors-api.js';
import { registerAiRoutes } from '../ai/ai-api.js';
import { aiFeatures } from '../ai/ai-features.js';
import { registerPlaybookRoutes } from '../ai/playbooks/playbooks-api.js';
import type { AiLedger } from '../metering/ai-ledger.js';
import type { LlmClient } from '../ai/llm/llm-client.js';
import { errors } from '../errors.js';
import { registerRuleFileRoutes } from '../detectors/rules/rules-api.js';
import { registerUsersRoutes } from '../query/users-api.js';
import { LiveTailSessions, registerTailRoutes } from '../query/tail-api.js';
import { registerSessionRoutes } from '../query/session-api.js';
import { registerAccountRoutes } from '../query/account-api.js';
import type { AiSpent } from '../limits/ai-credits.js';
import type { TenantGuardDeps } from '../query/tenant-route.js';
import type { TelemetryStore } from '../stores/telemetry/telemetry-store.js';
import type { Account, ControlStore, KeyGrant } from '../stores/control/control-store.js';
import type { EffectivePlan } from '../limits/plans.js';
import type { RefusalCounter } from '../observability/refusals.js';
import type { UsageReader } from '../metering/metering.js';
import { asServiceError, sendError } from '../front-doors/reply.js';

export interface AppPlaneDeps {
  admin: AdminDeps;
  guard: TenantGuardDeps;
  telemetry: TelemetryStore;
  store: ControlStore;
  planOf: (grant: KeyGrant) => EffectivePlan;
  usage: UsageReader;
  /** Today's AI credit spend of an account (Settings → Plan). */
  aiSpent: (account: Account) => Promise<AiSpent>;
  refusals: RefusalCounter;
  /** Open live-tail streams of this process (in memory); the service ends them all when it stops. */
  liveTail?: LiveTailSessions;
  /** More Prometheus text for /metrics after the refusal counters (the WAL's state, from the service). */
  moreMetrics?: () => string;
  /** Adds the metric and replay write routes (issue 5) to the same table. */
  registerWrites?: (router: Router) => void;
  /** Posts a notification channel's test notice (detectors/notify); channels are served when given. */
  notifySend?: Sender;
  /** Detectors and alerts (DESIGN §8): the catalog, the tenant routes and POST /admin/v1/detectors/evaluate. */
  detectors?: DetectorServices;
  /** The AI features (DESIGN §9): the credit ledger, and the optional model when SIGHTLINE_LLM_URL is set. */
  ai?: { ledger: AiLedger; llm?: LlmClient };
}

export function buildAppPlane(deps: AppPlaneDeps): RouterPlane {
  const router = new Router();
  registerAdminRoutes(router, deps.admin);
  const tenantDeps = { ...deps.guard, telemetry: deps.telemetry, store: deps.store, planOf: deps.planOf };
  registerLogsRoutes(router, tenantDeps);
  registerLogsStatsRoutes(router, tenantDeps);
  registerLogsStreamsRoutes(router, tenantDeps);
  registerTracesRoutes(router, tenantDeps);
  registerKeysRoutes(router, tenantDeps);
  registerUsageRoutes(router, { ...tenantDeps, usage: deps.usage });
  registerProjectsRoutes(router, tenantDeps);
  registerReplayRoutes(router, tenantDeps);
  registerPrometheusRoutes(router, tenantDeps);
  registerSavedSearchRoutes(router, tenantDeps);
  registerDashboardRoutes(router, tenantDeps);
  if (deps.notifySend) registerNotificationChannelRoutes(router, { ...tenantDeps, send: deps.notifySend });
  if (deps.detectors) registerDetectorRoutes(router, { ...tenantDeps, detectors: deps.detectors, adminToken: deps.admin.adminToken });
  if (deps.detectors) registerRuleFileRoutes(router, { ...tenantDeps, detectors: deps.detectors, adminToken: deps.admin.adminToken });
  if (deps.ai) {
    // A playbook's stated bounds become detectors through the same checks as POST …/detectors.
    const detectors = deps.detectors ? detectorChecks({ ...tenantDeps, detectors: deps.detectors }) : null;
    const features = aiFeatures({
      store: deps.store, planOf: deps.planOf,
      createDetector: (grant, body) => {
        if (!detectors) throw errors.unprocessable('detectors are not served by this process');
        return detectors.create(grant, body);
      },
    });
    registerAiRoutes(router, { ...tenantDeps, ledger: deps.ai.ledger, features, ...(deps.ai.llm ? { llm: deps.ai.llm } : {}) });
    registerPlaybookRoutes(router, tenantDeps);
  }
  registerUsersRoutes(router, tenantDeps);
  registerTailRoutes(router, { ...tenantDeps, sessions: deps.liveTail ?? new LiveTailSessions() });
  registerSessionRoutes(router, { ...deps.guard, store: deps.store });
  registerAccountRoutes(router, { ...tenantDeps, usage: deps.usage, aiSpent: deps.aiSpent });
  deps.registerWrites?.(router);

  // Refusal reasons per tenant, Prometheus text format (issue 3 item 9); admin token required.
  router.on('GET', '/metrics', async (ctx) => {
    try {
      requireAdminToken(ctx, deps.admin.adminToken);
      const text = deps.refusals.render() + (deps.moreMetrics?.() ?? '');
      ctx.res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
      ctx.res.end(text);
    } catch (e) {
      sendError(ctx.res, asServiceError(e, deps.admin.log), 'logs');
    }
    return Promise.resolve();
  });
  return new RouterPlane(router);
}
