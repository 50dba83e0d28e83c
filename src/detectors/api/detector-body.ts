// The JSON body of a detector (POST creates, PUT changes the fields it names), read into the control store's shape
// with a 400 naming the field for anything malformed. Times are seconds; a Prometheus duration text ("5m", "1h30m")
// is taken too, as rule files write them. Kind-specific parameters are the kind's business (eligibility.ts).
import { errors } from '../../errors.js';
import type { DetectorPatch } from '../../stores/control/detector-records.js';
import { parseDurationMs } from '../../query/promql/literals.js';
import { RESERVED_LABELS } from '../engine/labels.js';

const MAX_NAME = 256;
const MAX_TEXT = 4096;
const MAX_ENTRIES = 64;
const DAY_S = 86_400;
const LABEL_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Bounds of each time field, seconds. */
export const TIME_FIELDS = {
  window_s: { min: 10, max: 31 * DAY_S },
  interval_s: { min: 10, max: DAY_S },
  for_s: { min: 0, max: 30 * DAY_S },
  keep_firing_for_s: { min: 0, max: 30 * DAY_S },
  repeat_interval_s: { min: 60, max: 30 * DAY_S },
} as const;
type TimeField = keyof typeof TIME_FIELDS;

/** Defaults of a new detector: Prometheus' `for` and `keep_firing_for` (0), Alertmanager's repeat_interval (4 h). */
export function detectorDefaults(evalIntervalMs: number): Required<Omit<DetectorPatch, 'name' | 'kind'>> {
  const intervalS = evalIntervalMs > 0 ? Math.min(DAY_S, Math.max(10, Math.ceil(evalIntervalMs / 1000))) : 60;
  return {
    params: {}, windowS: Math.max(300, intervalS), intervalS, forS: 0, keepFiringForS: 0, labels: {}, annotations: {},
    channelIds: [], repeatIntervalS: 4 * 3600, enabled: true,
  };
}

function seconds(body: Record<string, unknown>, name: TimeField): number | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  let s: number;
  if (typeof v === 'number') s = v;
  else if (typeof v === 'string') {
    const ms = /^\d+$/.test(v.trim()) ? Number(v) * 1000 : parseDurationMs(v.trim());
    if (ms === undefined) throw errors.badRequest(`${name} must be a number of seconds or a duration such as "5m"`);
    s = ms / 1000;
  } else throw errors.badRequest(`${name} must be a number of seconds or a duration such as "5m"`);
  const { min, max } = TIME_FIELDS[name];
  if (!Number.isInteger(s) || s < min || s > max) throw errors.badRequest(`${name} must be a whole number of seconds from ${min} to ${max}`);
  return s;
}

function stringMap(body: Record<string, unknown>, name: string, checkKey: (k: string) => string | null): Record<string, string> | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw errors.badRequest(`${name} must be an object of strings`);
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > MAX_ENTRIES) throw errors.badRequest(`${name} may have at most ${MAX_ENTRIES} entries`);
  const out: Record<string, string> = {};
  for (const [k, x] of entries) {
    if (typeof x !== 'string') throw errors.badRequest(`${name}.${k} must be a string`);
    if (x.length > MAX_TEXT) throw errors.badRequest(`${name}.${k} must be at most ${MAX_TEXT} characters`);
    const problem = checkKey(k);
    if (problem !== null) throw errors.badRequest(`${name}.${k}: ${problem}`);
    out[k] = x;
  }
  return out;
}

function labelKey(k: string): string | null {
  if (!LABEL_NAME_RE.test(k)) return 'a label name is letters, digits and _ and does not start with a digit';
  if ((RESERVED_LABELS as readonly string[]).includes(k)) return `set by the engine on every alert (${RESERVED_LABELS.join(', ')})`;
  return null;
}

function annotationKey(k: string): string | null {
  return LABEL_NAME_RE.test(k) ? null : 'an annotation name is letters, digits and _';
}

/** The fields the body names; `required` (a creation) insists on name and kind. */
export function readDetectorBody(body: Record<string, unknown>, required: boolean): DetectorPatch {
  const patch: DetectorPatch = {};
  const name = body.name;
  if (name !== undefined || required) {
    if (typeof name !== 'string' || name.trim() === '') throw errors.badRequest('name is required');
    if (name.trim().length > MAX_NAME) throw errors.badRequest(`name must be at most ${MAX_NAME} characters`);
    patch.name = name.trim();
  }
  const kind = body.kind;
  if (kind !== undefined || required) {
    if (typeof kind !== 'string' || kind === '') throw errors.badRequest('kind is required (see GET /api/v1/detectors/catalog)');
    patch.kind = kind;
  }
  const params = body.params;
  if (params !== undefined && params !== null) {
    if (typeof params !== 'object' || Array.isArray(params)) throw errors.badRequest('params must be an object');
    patch.params = params as Record<string, unknown>;
  }
  const times: [TimeField, keyof DetectorPatch][] = [
    ['window_s', 'windowS'], ['interval_s', 'intervalS'], ['for_s', 'forS'], ['keep_firing_for_s', 'keepFiringForS'],
    ['repeat_interval_s', 'repeatIntervalS'],
  ];
  for (const [field, key] of times) {
    const s = seconds(body, field);
    if (s !== undefined) (patch as Record<string, unknown>)[key] = s;
  }
  const labels = stringMap(body, 'labels', labelKey);
  if (labels) patch.labels = labels;
  const annotations = stringMap(body, 'annotations', annotationKey);
  if (annotations) patch.annotations = annotations;
  const channels = body.channel_ids;
  if (channels !== undefined && channels !== null) {
    if (!Array.isArray(channels) || channels.some((c) => typeof c !== 'string' || c === '')) throw errors.badRequest('channel_ids must be an array of channel ids');
    if (channels.length > MAX_ENTRIES) throw errors.badRequest(`channel_ids may name at most ${MAX_ENTRIES} channels`);
    patch.channelIds = [...new Set(channels as string[])];
  }
  const enabled = body.enabled;
  if (enabled !== undefined && enabled !== null) {
    if (typeof enabled !== 'boolean') throw errors.badRequest('enabled must be true or false');
    patch.enabled = enabled;
  }
  return patch;
}
