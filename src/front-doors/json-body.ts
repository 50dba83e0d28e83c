// Small JSON request bodies of the admin and tenant APIs: bounded, and a clear 400 when malformed.
import type { RequestContext } from './context.js';
import { readBody } from '../ingest/body.js';
import { errors } from '../errors.js';

const MAX_JSON_BYTES = 1024 * 1024;

export async function readJsonObject(ctx: RequestContext): Promise<Record<string, unknown>> {
  const raw = await readBody(ctx.req, MAX_JSON_BYTES);
  if (raw.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw errors.badRequest(`Body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw errors.badRequest('Body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/** Field readers that answer 400 naming the field. */
export const field = {
  string(body: Record<string, unknown>, name: string): string | undefined {
    const v = body[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw errors.badRequest(`${name} must be a string`);
    return v;
  },
  boolean(body: Record<string, unknown>, name: string): boolean | undefined {
    const v = body[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw errors.badRequest(`${name} must be true or false`);
    return v;
  },
  /** RFC 3339 text → unix ms; `null` stays null (clears a value). */
  time(body: Record<string, unknown>, name: string): number | null | undefined {
    const v = body[name];
    if (v === undefined) return undefined;
    if (v === null) return null;
    const ms = typeof v === 'string' ? Date.parse(v) : typeof v === 'number' ? v : NaN;
    if (!Number.isFinite(ms)) throw errors.badRequest(`${name} must be an RFC 3339 time`);
    return ms;
  },
  object(body: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
    const v = body[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) throw errors.badRequest(`${name} must be an object`);
    return v as Record<string, unknown>;
  },
};
