// The request bodies of the AI endpoints (DESIGN §9), read with a 400 naming the field for anything malformed.
// Times are RFC 3339 or unix seconds, as the rest of the tenant API takes them.
import { errors } from '../errors.js';

export interface QuestionBody {
  question: string;
  startMs?: number;
  endMs?: number;
}

export interface RcaBody {
  query: string;
  startMs: number;
  endMs: number;
  baselineStartMs?: number;
  baselineEndMs?: number;
}

export interface DeepRcaBody {
  startMs: number;
  endMs: number;
  service?: string;
}

export interface PlaybookBody {
  content: string;
  format?: 'markdown' | 'yaml';
}

const MAX_QUESTION = 1000;
const MAX_QUERY = 64 * 1024;
const MAX_PLAYBOOK = 256 * 1024;
const MAX_SERVICE = 256;

function text(body: Record<string, unknown>, name: string, max: number, required: true): string;
function text(body: Record<string, unknown>, name: string, max: number, required: false): string | undefined;
function text(body: Record<string, unknown>, name: string, max: number, required: boolean): string | undefined {
  const v = body[name];
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
    if (required) throw errors.badRequest(`${name} is required`);
    return undefined;
  }
  if (typeof v !== 'string') throw errors.badRequest(`${name} must be a string`);
  if (v.length > max) throw errors.badRequest(`${name} must be at most ${max} characters`);
  return v;
}

/** RFC 3339 or unix seconds (a number or its digits) → unix ms. */
export function timeField(body: Record<string, unknown>, name: string): number | undefined {
  const v = body[name];
  if (v === undefined || v === null || v === '') return undefined;
  let ms = NaN;
  if (typeof v === 'number') ms = v * 1000;
  else if (typeof v === 'string') ms = /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) * 1000 : Date.parse(v);
  if (!Number.isFinite(ms)) throw errors.badRequest(`${name} must be an RFC 3339 time or unix seconds`);
  return Math.trunc(ms);
}

function window(body: Record<string, unknown>, startName: string, endName: string, nowMs: number): { startMs: number; endMs: number } {
  const startMs = timeField(body, startName);
  const endMs = timeField(body, endName);
  if (startMs === undefined) throw errors.badRequest(`${startName} is required`);
  if (endMs === undefined) throw errors.badRequest(`${endName} is required`);
  if (endMs <= startMs) throw errors.badRequest(`${endName} must be after ${startName}`);
  if (startMs > nowMs) throw errors.badRequest(`${startName} is in the future`);
  return { startMs, endMs };
}

export const readAiBody = {
  question(body: Record<string, unknown>): QuestionBody {
    const out: QuestionBody = { question: text(body, 'question', MAX_QUESTION, true).trim() };
    const startMs = timeField(body, 'start');
    const endMs = timeField(body, 'end');
    if (startMs !== undefined) out.startMs = startMs;
    if (endMs !== undefined) out.endMs = endMs;
    if (startMs !== undefined && endMs !== undefined && endMs <= startMs) throw errors.badRequest('end must be after start');
    return out;
  },

  rca(body: Record<string, unknown>, nowMs: number): RcaBody {
    const out: RcaBody = { query: text(body, 'query', MAX_QUERY, true), ...window(body, 'start', 'end', nowMs) };
    const bStart = timeField(body, 'baseline_start');
    const bEnd = timeField(body, 'baseline_end');
    if ((bStart === undefined) !== (bEnd === undefined)) throw errors.badRequest('baseline_start and baseline_end go together');
    if (bStart !== undefined && bEnd !== undefined) {
      if (bEnd <= bStart) throw errors.badRequest('baseline_end must be after baseline_start');
      out.baselineStartMs = bStart;
      out.baselineEndMs = bEnd;
    }
    return out;
  },

  deepRca(body: Record<string, unknown>, nowMs: number): DeepRcaBody {
    const out: DeepRcaBody = window(body, 'start', 'end', nowMs);
    const service = text(body, 'service', MAX_SERVICE, false);
    if (service !== undefined) out.service = service.trim();
    return out;
  },

  playbook(body: Record<string, unknown>): PlaybookBody {
    const out: PlaybookBody = { content: text(body, 'content', MAX_PLAYBOOK, true) };
    const format = body.format;
    if (format !== undefined && format !== null) {
      if (format !== 'markdown' && format !== 'yaml') throw errors.badRequest('format must be "markdown" or "yaml"');
      out.format = format;
    }
    return out;
  },
};
