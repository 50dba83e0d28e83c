// Parameters read against the kind's own ParamSpec list, so the catalog and the validation cannot drift apart: an
// unknown name, a missing required one, a wrong type, a value outside `enum`/`min`/`max` or a query the real parser
// refuses is a ParamError naming the parameter (the engine turns it into the 422 `detail`, DESIGN §8). Durations are
// Prometheus/LogsQL duration strings (`5m`, `1h30m`, `7d`) or a number of seconds, and come back in ms; for a
// duration, `min` and `max` in the spec are seconds.
import { ParamError, type ParamSpec } from '../model.js';
import { canonicalField } from '../../model/logsql-ast.js';
import type { LogsqlQuery } from '../../model/logsql-ast.js';
import { LogsqlSyntaxError, parseLogsql } from '../../query/logsql/parser.js';
import { parsePromql, PromqlError, typeOf } from '../../query/promql/parse.js';
import { parseDuration } from '../../query/logsql/time-value.js';

export type Raw = Record<string, unknown>;
type Value = string | number | boolean | string[];

/** `5m`, `1h30m`, `1.5d` → ms; undefined when the text is not a duration. */
export function durationMs(text: string): number | undefined {
  const ns = parseDuration(text.trim());
  return ns === undefined ? undefined : Number(ns / 1_000_000n);
}

/** A duration as short text: 90000 → `1m30s`, 604800000 → `7d`. */
export function durationText(ms: number): string {
  const units: [string, number][] = [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000], ['ms', 1]];
  let rest = Math.round(ms);
  let out = '';
  for (const [u, n] of units) {
    if (rest >= n) {
      out += `${Math.floor(rest / n)}${u}`;
      rest %= n;
    }
  }
  return out === '' ? '0s' : out;
}

function fail(spec: ParamSpec, message: string): never {
  throw new ParamError(spec.name, message);
}

function inRange(spec: ParamSpec, n: number, unit: 'number' | 'seconds'): void {
  const what = unit === 'seconds' ? (x: number) => durationText(x * 1000) : String;
  if (spec.min !== undefined && n < spec.min) fail(spec, `must be at least ${what(spec.min)}`);
  if (spec.max !== undefined && n > spec.max) fail(spec, `must be at most ${what(spec.max)}`);
}

function readOne(spec: ParamSpec, v: unknown): Value {
  switch (spec.type) {
    case 'string':
    case 'logsql':
    case 'promql': {
      if (typeof v !== 'string') fail(spec, `must be a string, not ${JSON.stringify(v)}`);
      if (spec.enum && !spec.enum.includes(v)) fail(spec, `must be one of ${spec.enum.join(', ')}; got ${JSON.stringify(v)}`);
      if (spec.type === 'promql') checkPromql(spec, v);
      if (spec.type === 'logsql') parseLogsqlParam(spec.name, v);
      return v;
    }
    case 'number':
    case 'integer': {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isFinite(n)) fail(spec, `must be a number, not ${JSON.stringify(v)}`);
      if (spec.type === 'integer' && !Number.isInteger(n)) fail(spec, `must be a whole number, not ${n}`);
      inRange(spec, n, 'number');
      return n;
    }
    case 'boolean':
      if (typeof v !== 'boolean') fail(spec, `must be true or false, not ${JSON.stringify(v)}`);
      return v;
    case 'duration': {
      const ms = typeof v === 'number' && Number.isFinite(v) ? v * 1000 : typeof v === 'string' ? durationMs(v) : undefined;
      if (ms === undefined) fail(spec, `must be a duration such as "5m", "1h" or "7d" (or a number of seconds), not ${JSON.stringify(v)}`);
      if (ms <= 0) fail(spec, 'must be longer than 0');
      inRange(spec, ms / 1000, 'seconds');
      return ms;
    }
    case 'string[]': {
      const list = typeof v === 'string' ? [v] : v;
      if (!Array.isArray(list) || !list.every((x): x is string => typeof x === 'string' && x.trim() !== '')) {
        fail(spec, `must be a list of non-empty strings, not ${JSON.stringify(v)}`);
      }
      if (spec.max !== undefined && list.length > spec.max) fail(spec, `takes at most ${spec.max} entries`);
      return list.map((s) => s.trim());
    }
  }
}

function checkPromql(spec: ParamSpec, text: string): void {
  try {
    const t = typeOf(parsePromql(text));
    if (t !== 'vector' && t !== 'scalar') fail(spec, `must be an instant vector or scalar expression, not a ${t === 'matrix' ? 'range vector' : t}`);
  } catch (e) {
    if (e instanceof PromqlError) fail(spec, `invalid PromQL: ${e.message}`);
    throw e;
  }
}

/** The real LogsQL parser's verdict (relative times resolve against 0: the kinds refuse `_time` filters anyway). */
export function parseLogsqlParam(name: string, text: string): LogsqlQuery {
  try {
    return parseLogsql(text, 0n);
  } catch (e) {
    if (e instanceof LogsqlSyntaxError || e instanceof RangeError) throw new ParamError(name, `invalid LogsQL: ${e.message}`);
    throw e;
  }
}

/** The validated parameters of one detector, with typed accessors for the kind that owns the specs. */
export class Params {
  private readonly values = new Map<string, Value>();
  private readonly given = new Set<string>();

  constructor(specs: readonly ParamSpec[], raw: Raw) {
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new ParamError('params', 'must be an object');
    const known = new Map(specs.map((s) => [s.name, s]));
    for (const name of Object.keys(raw)) {
      if (!known.has(name)) throw new ParamError(name, `unknown parameter; this kind takes ${specs.map((s) => s.name).join(', ')}`);
    }
    for (const spec of specs) {
      const v = raw[spec.name];
      if (v === undefined || v === null) {
        if (spec.required) fail(spec, `is required (${spec.description})`);
        if (spec.default !== undefined) this.values.set(spec.name, readOne(spec, spec.default));
        continue;
      }
      this.given.add(spec.name);
      this.values.set(spec.name, readOne(spec, v));
    }
  }

  has(name: string): boolean {
    return this.given.has(name);
  }

  str(name: string): string {
    const v = this.values.get(name);
    if (typeof v !== 'string') throw new ParamError(name, 'is required');
    return v;
  }

  optStr(name: string): string | undefined {
    const v = this.values.get(name);
    return typeof v === 'string' ? v : undefined;
  }

  num(name: string): number {
    const v = this.values.get(name);
    if (typeof v !== 'number') throw new ParamError(name, 'is required');
    return v;
  }

  optNum(name: string): number | undefined {
    const v = this.values.get(name);
    return typeof v === 'number' ? v : undefined;
  }

  list(name: string): string[] {
    const v = this.values.get(name);
    return Array.isArray(v) ? v : [];
  }

  /** A list of field names, `level` written as `severity` as the LogsQL parser does. */
  fields(name: string): string[] {
    const names = this.list(name).map(canonicalField);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup !== undefined) throw new ParamError(name, `names ${dup} twice`);
    if (names.includes('_time')) throw new ParamError(name, 'must not hold _time: the detector\'s window is the time range');
    return names;
  }
}

/** Exactly one of two alternative parameters (`query` or `expr`); the ParamError names both. */
export function oneOf(p: Params, a: string, b: string): 'a' | 'b' {
  if (p.has(a) && p.has(b)) throw new ParamError(a, `give ${a} or ${b}, not both`);
  if (!p.has(a) && !p.has(b)) throw new ParamError(a, `one of ${a} or ${b} is required`);
  return p.has(a) ? 'a' : 'b';
}
