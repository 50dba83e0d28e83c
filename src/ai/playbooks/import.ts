// Playbook import (DESIGN §9 `POST …/ai/playbooks`, issue 10 item 4): a runbook becomes a stored playbook of steps;
// each step's LogsQL becomes a saved search (counted against the plan's saved-search ceiling, DESIGN §6 — past it
// the search is skipped with the ceiling's own detail, and the import goes on), and each bound it states becomes a
// detector through the detectors API's own create path (the `createDetector` callback: body read, channels,
// eligibility), labelled with the playbook so its alerts link back. A detector the checks refuse (a kind whose
// history is not there yet, a query the kind does not take) is skipped with the refusal's detail. PromQL is not a
// saved search (saved searches are LogsQL, saved-searches-api.ts); it stays the step's query, linked to Metrics.
// ai-api.ts gates, charges and renders; a re-import makes a new playbook.
import { randomBytes } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import { checkCeiling } from '../../limits/gates.js';
import type { EffectivePlan } from '../../limits/plans.js';
import { DetectorIneligible } from '../../detectors/api/eligibility.js';
import { EvaluationDeferred } from '../../detectors/engine/data.js';
import type { ControlStore } from '../../stores/control/control-store.js';
import type { StoredPlaybook } from '../../stores/control/playbook-records.js';
import { playbookDetectorBody } from './detector-body.js';
import { parsePlaybook } from './parse.js';
import type { Bound, PlaybookJson, PlaybookStep, StepAlert } from './model.js';

export interface PlaybookDeps {
  store: ControlStore;
  /** The grant's account and tenant. */
  accountId: string;
  tenantId: string;
  /** Service time (DESIGN §3 test clock), unix ms: relative times in queries resolve against it. */
  nowMs: number;
  /** The account's effective plan: its saved-search ceiling applies (DESIGN §6). */
  plan: EffectivePlan;
  /**
   * Creates a detector from a POST …/detectors body (detector-body.ts playbookDetectorBody) as that route would:
   * detectors-api.ts detectorChecks(…).create(grant, body). Throws DetectorIneligible (422) or a 400 ServiceError
   * for a body the checks refuse; the import skips that detector with the detail.
   */
  createDetector(body: Record<string, unknown>): Promise<{ id: string; name: string; kind: string }>;
  /** Where the web app shows a playbook (the alerts' `playbook_url`); default `/app/alerts/playbooks/<id>`. */
  playbookUrl?: (id: string) => string;
}

export interface Skipped {
  step: string;
  what: 'saved_search' | 'detector';
  reason: string;
}

export interface ImportResult {
  playbook: PlaybookJson;
  created: { saved_searches: { id: string; name: string; query: string }[]; detectors: { id: string; name: string; kind: string }[] };
  /** What a step asked for and the import did not create, with why (a ceiling, a refused detector). */
  skipped: Skipped[];
}

const MAX_NAME = 256;

/** `pbk_…`: 96 random bits, as the control store's other ids (sql-rows.ts newId); chosen here so labels can name it. */
function newPlaybookId(): string {
  return `pbk_${randomBytes(12).toString('hex')}`;
}

export const defaultPlaybookUrl = (id: string): string => `/app/alerts/playbooks/${encodeURIComponent(id)}`;

/** A refusal of the checks a detector goes through: skipped with its detail. Anything else is a failure. */
function refusal(e: unknown): string | null {
  if (e instanceof DetectorIneligible) return e.message;
  if (e instanceof EvaluationDeferred) return 'the tenant\'s query rate is spent for now; import again later to create it';
  if (e instanceof ServiceError && e.status >= 400 && e.status < 500) return e.detail;
  return null;
}

async function createSavedSearch(deps: PlaybookDeps, name: string, query: string): Promise<{ id: string; name: string; query: string } | string> {
  try {
    // Count and create in one transaction with the account locked, as POST …/saved-searches does (DESIGN §6).
    const s = await deps.store.withAccountLock(deps.accountId, async (tx) => {
      checkCeiling(deps.plan, 'savedSearches', await tx.countSavedSearches(deps.accountId));
      return tx.createSavedSearch({ tenantId: deps.tenantId, accountId: deps.accountId, name, query });
    });
    return { id: s.id, name: s.name, query: s.query };
  } catch (e) {
    if (e instanceof ServiceError && e.status === 403) return e.detail;
    throw e;
  }
}

export async function importPlaybook(input: { content: string; format?: 'markdown' | 'yaml' }, deps: PlaybookDeps): Promise<ImportResult> {
  const parsed = parsePlaybook(input.content, input.format, deps.nowMs);
  const id = newPlaybookId();
  const url = (deps.playbookUrl ?? defaultPlaybookUrl)(id);
  const created: ImportResult['created'] = { saved_searches: [], detectors: [] };
  const skipped: Skipped[] = [];
  const steps: PlaybookStep[] = [];
  for (const p of parsed.steps) {
    const { alerts, notes, ...rest } = p;
    const step: PlaybookStep = { ...rest };
    if (p.query !== undefined && p.signal === 'logs') {
      const made = await createSavedSearch(deps, p.title.slice(0, MAX_NAME), p.query);
      if (typeof made === 'string') skipped.push({ step: p.title, what: 'saved_search', reason: made });
      else {
        created.saved_searches.push(made);
        step.saved_search_id = made.id;
      }
    }
    const done: StepAlert[] = [];
    for (const a of alerts) {
      if (!a.bound) {
        done.push(a);
        continue;
      }
      const body = playbookDetectorBody(a as StepAlert & { bound: Bound }, { playbookId: id, playbookTitle: parsed.title, stepTitle: p.title, playbookUrl: url });
      try {
        const d = await deps.createDetector(body);
        created.detectors.push({ id: d.id, name: d.name, kind: d.kind });
        done.push({ ...a, detector_id: d.id });
      } catch (e) {
        const reason = refusal(e);
        if (reason === null) throw e;
        skipped.push({ step: p.title, what: 'detector', reason });
        done.push({ ...a, note: `detector not created: ${reason}` });
      }
    }
    if (done.length > 0) step.alerts = done;
    if (notes.length > 0) step.notes = notes;
    steps.push(step);
  }
  const stored = await deps.store.createPlaybook({
    id, tenantId: deps.tenantId, accountId: deps.accountId, title: parsed.title, format: parsed.format, steps,
    savedSearchIds: created.saved_searches.map((s) => s.id), detectorIds: created.detectors.map((d) => d.id),
  });
  return { playbook: renderPlaybook(stored), created, skipped };
}

/** The stored playbook as the API returns it (DESIGN §9 `playbook`). */
export function renderPlaybook(p: StoredPlaybook): PlaybookJson {
  return {
    id: p.id, title: p.title, format: p.format, steps: p.steps as PlaybookStep[], saved_search_ids: p.savedSearchIds,
    detector_ids: p.detectorIds, created_at: new Date(p.createdAt).toISOString(),
  };
}
