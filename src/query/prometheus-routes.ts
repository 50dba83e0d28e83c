// The Prometheus HTTP API at /api/v1/tenants/<t>/prometheus/api/v1/… (DESIGN §4), so Grafana's Prometheus
// datasource and promtool work pointed at /api/v1/tenants/<t>/prometheus. Errors of the credential rules
// keep the spec's shape; query errors answer as Prometheus does (`{status: "error", errorType, error}`).
import type { Router } from '../front-doors/router.js';
import { sendJson } from '../front-doors/reply.js';
import type { TelemetryStore } from '../stores/telemetry/telemetry-store.js';
import { PROMETHEUS_ROUTES } from './promql/prometheus-api.js';
import { guarded, type TenantGuardDeps } from './tenant-route.js';
import { requestParams } from './request-params.js';

export function registerPrometheusRoutes(router: Router, deps: TenantGuardDeps & { telemetry: TelemetryStore }): void {
  for (const route of PROMETHEUS_ROUTES) {
    router.on([...route.methods], `/api/v1/tenants/:tenant/prometheus/api/v1/${route.path}`, guarded(deps, 'read', true, async (ctx, grant) => {
      const params = await requestParams(ctx);
      const pathParams: Record<string, string> = {};
      for (const [k, v] of Object.entries(ctx.params)) if (k !== 'tenant' && v !== undefined) pathParams[k] = decodeURIComponent(v);
      const reply = await route.handler(deps.telemetry.metrics, grant.tenant.id, params, deps.clock.now(), pathParams);
      sendJson(ctx.res, reply.status, reply.body);
    }));
  }
}
