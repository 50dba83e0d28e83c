// The four analyses as the AI API runs them (DESIGN §9): each feature module's result shaped into its reply, with
// the optional model's part where DESIGN §9 allows one (a question the grammar cannot place; RCA summaries reworded).
import type { AppGrant } from '../auth/sessions.js';
import type { ControlStore } from '../stores/control/control-store.js';
import type { EffectivePlan } from '../limits/plans.js';
import type { Detector } from '../stores/control/detector-records.js';
import type { AiFeatures } from './ai-api.js';
import { AiUnprocessable } from './model.js';
import { answerQuestion, NlUnplaceable } from './nl-query/nl-query.js';
import { rootCauseHypotheses } from './rca/rca.js';
import { deepRootCause } from './deep-rca/deep-rca.js';
import { importPlaybook } from './playbooks/import.js';
import { rewordSummaries } from './llm/reword.js';

export interface AiFeatureDeps {
  store: ControlStore;
  planOf: (grant: AppGrant) => EffectivePlan;
  /** Creates a detector exactly as POST …/detectors does (detectors-api.ts detectorChecks().create). */
  createDetector: (grant: AppGrant, body: Record<string, unknown>) => Promise<Detector>;
}

export function aiFeatures(deps: AiFeatureDeps): AiFeatures {
  return {
    async query(body, ctx) {
      try {
        return { ...(await answerQuestion(body, ctx)) };
      } catch (e) {
        if (!(e instanceof NlUnplaceable)) throw e;
        const words = e.words;
        const detail = words.length === 0
          ? 'The question is empty.'
          : `Could not place ${words.map((w) => `"${w}"`).join(', ')} in the question (not a time, level, count, field or known value of this tenant)`;
        throw new AiUnprocessable(detail, { words });
      }
    },

    async rca(body, ctx) {
      const result = await rootCauseHypotheses(body, ctx);
      const hypotheses = ctx.llm ? await rewordSummaries(result.hypotheses, ctx.llm) : result.hypotheses;
      return { ...result, hypotheses };
    },

    async deepRca(body, ctx) {
      const result = await deepRootCause(body, ctx);
      const hypotheses = ctx.llm ? await rewordSummaries(result.hypotheses, ctx.llm) : result.hypotheses;
      return { ...result, hypotheses };
    },

    async importPlaybook(body, grant, ctx) {
      const result = await importPlaybook(body, {
        store: deps.store, accountId: grant.account.id, tenantId: grant.tenant.id, nowMs: ctx.nowMs, plan: deps.planOf(grant),
        createDetector: async (detectorBody) => {
          const d = await deps.createDetector(grant, detectorBody);
          return { id: d.id, name: d.name, kind: d.kind };
        },
      });
      return { ...result };
    },
  };
}
