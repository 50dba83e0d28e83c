// What Explore asks of the AI endpoints (DESIGN §9): a question to a query, and what sets the current selection apart.
import { sendJson, tenantPath } from '../../lib/api';

export interface Credits { cost: number; used_today: number; remaining: number | null }
export interface EvidenceQuery { signal: 'logs' | 'metrics' | 'traces'; query: string; start: string; end: string; purpose: string }

export interface NlAnswer {
  signal: 'logs' | 'metrics' | 'traces';
  query: string;
  start: string;
  end: string;
  explanation: string;
  credits: Credits;
}

export interface Hypothesis {
  kind: 'field_value' | 'pattern' | 'service' | 'change';
  field?: string;
  value?: string;
  pattern?: string;
  score: number;
  incident_share: number;
  baseline_share: number;
  count: number;
  summary: string;
  query: string;
}

export interface RcaReply {
  hypotheses: Hypothesis[];
  incident_count: number;
  baseline_count: number;
  baseline: { start: string; end: string };
  evidence: { queries: EvidenceQuery[] };
  credits: Credits;
}

export interface DeepRcaReply {
  summary: string;
  suspects: { service: string; score: number; evidence: { kind: string; text: string; query?: string; signal: string }[] }[];
  timeline: { time: string; signal: string; service?: string; text: string }[];
  hypotheses: Hypothesis[];
  evidence: { queries: EvidenceQuery[] };
  credits: Credits;
}

export const ask = (tenant: string, question: string, range: { start: string; end: string }): Promise<NlAnswer> =>
  sendJson<NlAnswer>('POST', tenantPath(tenant, 'ai/query'), { question, ...range });

export const explain = (tenant: string, query: string, range: { start: string; end: string }): Promise<RcaReply> =>
  sendJson<RcaReply>('POST', tenantPath(tenant, 'ai/rca'), { query, ...range });

export const deepAnalysis = (tenant: string, range: { start: string; end: string }, service?: string): Promise<DeepRcaReply> =>
  sendJson<DeepRcaReply>('POST', tenantPath(tenant, 'ai/deep-rca'), { ...range, ...(service ? { service } : {}) });

export const creditsText = (c: Credits): string =>
  `${c.cost} AI credit${c.cost === 1 ? '' : 's'} · ${c.remaining === null ? 'unlimited' : `${c.remaining} left today`}`;

export const percent = (share: number): string => `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
