// The storage seam of the PromQL engine and the Prometheus HTTP API (DESIGN §4): series chosen by label
// matchers over a time range, label discovery and metric metadata. Backends implement it (DuckDB in
// stores/telemetry/duckdb/samples-sql.ts); MemorySeriesSource is the test double that ships with it.
import { isStaleMarker, labelValue, type MetricMetadata, type MetricSample } from './metric.js';

/** One label matcher of a selector, as PromQL writes it: `name="v"`, `!=`, `=~`, `!~`. */
export interface LabelMatcher {
  name: string;
  type: '=' | '!=' | '=~' | '!~';
  value: string;
}

/** One stored sample. `stale` marks a Prometheus staleness marker; see StoredSeries. */
export interface StoredSample {
  t: number;
  v: number;
  stale?: boolean;
}

/**
 * A series as stored: its full label set (with `__name__`) and its samples in ascending time order.
 * A staleness marker is a sample whose `stale` is true, or whose `v` still carries the stale-NaN bits:
 * V8 rewrites NaN payloads when a number lands in a double array or a Map, so backends set the flag.
 */
export interface StoredSeries {
  labels: Record<string, string>;
  samples: StoredSample[];
}

export interface SeriesSource {
  /** Series of the tenant that match every matcher, with their samples in [startMs, endMs] (inclusive). */
  select(tenantId: string, matchers: LabelMatcher[], startMs: number, endMs: number): Promise<StoredSeries[]>;
  /** Sorted label names of series with a sample in range that match any of the matcher sets (all series if none). */
  labelNames(tenantId: string, matchers: LabelMatcher[][], startMs: number, endMs: number): Promise<string[]>;
  /** Sorted non-empty values of one label, over series as in labelNames. */
  labelValues(tenantId: string, name: string, matchers: LabelMatcher[][], startMs: number, endMs: number): Promise<string[]>;
  /** Metadata by metric name, sorted by name; `limit` caps the number of metric names (0 or absent: no cap). */
  metadata(tenantId: string, metric?: string, limit?: number): Promise<MetricMetadata[]>;
  /**
   * Label sets (with `__name__`) of the series with a sample in range that match any matcher set, without
   * reading their samples (`/api/v1/series`). Optional: without it the API selects and drops the samples.
   */
  series?(tenantId: string, matchers: LabelMatcher[][], startMs: number, endMs: number): Promise<Record<string, string>[]>;
}

export function isStaleSample(s: StoredSample): boolean {
  return s.stale === true || isStaleMarker(s.v);
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', digit: '0-9', lower: 'a-z', upper: 'A-Z', space: '\\t\\n\\v\\f\\r ',
  word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f', blank: '\\t ', cntrl: '\\x00-\\x1f\\x7f',
};

/**
 * A Go (RE2) regular expression as Prometheus anchors it for label matchers: `^(?:re)$`. Translates the RE2
 * spellings JS lacks (a leading `(?i)`/`(?s)` flag group, `(?P<name>`, `[[:alpha:]]`, `\A`, `\z`) and refuses
 * what RE2 refuses but JS would take (look-around, back-references). Throws SyntaxError.
 */
export function anchoredRegExp(re: string): RegExp {
  let body = re;
  let flags = '';
  const lead = /^\(\?([is]+)\)/.exec(body);
  if (lead) {
    flags = [...new Set(lead[1] ?? '')].join('');
    body = body.slice(lead[0].length);
  }
  return new RegExp(`^(?:${re2ToJs(body)})$`, flags);
}

/** One pass over the pattern, escapes respected. */
function re2ToJs(re: string): string {
  let out = '';
  for (let i = 0; i < re.length; i++) {
    const c = re[i] ?? '';
    const next = re[i + 1] ?? '';
    if (c === '\\') {
      if (/[1-9]/.test(next)) throw new SyntaxError(`invalid escape sequence: \\${next}`);
      out += next === 'A' ? '^' : next === 'z' ? '$' : c + next;
      i++;
    } else if (c === '(' && next === '?') {
      const rest = re.slice(i + 2);
      if (/^<?[=!]/.test(rest)) throw new SyntaxError(`invalid or unsupported Perl syntax: ${JSON.stringify(re.slice(i, i + 4))}`);
      if (rest.startsWith('P<')) {
        out += '(?<';
        i += 3;
      } else out += c;
    } else if (c === '[' && next === ':') {
      const m = /^\[:(\w+):\]/.exec(re.slice(i));
      const cls = m ? POSIX_CLASSES[m[1] ?? ''] : undefined;
      if (m && cls !== undefined) {
        out += cls;
        i += m[0].length - 1;
      } else out += c;
    } else out += c;
  }
  return out;
}

/** A matcher as a predicate on a label value; an absent label is the empty string, as in Prometheus. */
export function matcherPredicate(m: LabelMatcher): (value: string) => boolean {
  switch (m.type) {
    case '=': return (v) => v === m.value;
    case '!=': return (v) => v !== m.value;
    case '=~': {
      const re = anchoredRegExp(m.value);
      return (v) => re.test(v);
    }
    case '!~': {
      const re = anchoredRegExp(m.value);
      return (v) => !re.test(v);
    }
  }
}

export function labelsMatcher(matchers: LabelMatcher[]): (labels: Record<string, string>) => boolean {
  const preds = matchers.map((m) => ({ name: m.name, pred: matcherPredicate(m) }));
  return (labels) => preds.every(({ name, pred }) => pred(labelValue(labels, name)));
}

/** The canonical key of a label set: sorted pairs, so equal sets give equal keys. */
export function seriesKey(labels: Record<string, string>): string {
  return Object.keys(labels).sort().map((k) => `${k}\u0000${labels[k] ?? ''}`).join('\u0001');
}

interface MemorySeries {
  labels: Record<string, string>;
  samples: StoredSample[];
}

/** In-memory SeriesSource for tests: add() keeps each series sorted, one sample per timestamp (last wins). */
export class MemorySeriesSource implements SeriesSource {
  private readonly tenants = new Map<string, Map<string, MemorySeries>>();
  private readonly meta = new Map<string, MetricMetadata[]>();

  add(tenantId: string, samples: readonly MetricSample[]): void {
    let series = this.tenants.get(tenantId);
    if (!series) this.tenants.set(tenantId, (series = new Map<string, MemorySeries>()));
    for (const s of samples) {
      const labels = Object.fromEntries(Object.entries({ ...s.labels, __name__: s.name }).filter(([, v]) => v !== ''));
      const key = seriesKey(labels);
      let entry = series.get(key);
      if (!entry) series.set(key, (entry = { labels, samples: [] }));
      insertSample(entry.samples, isStaleMarker(s.value) ? { t: s.timeMs, v: Number.NaN, stale: true } : { t: s.timeMs, v: s.value });
    }
  }

  addMetadata(tenantId: string, metadata: readonly MetricMetadata[]): void {
    const list = this.meta.get(tenantId) ?? [];
    for (const m of metadata) {
      if (!list.some((x) => x.name === m.name && x.type === m.type && x.help === m.help && x.unit === m.unit)) list.push({ ...m });
    }
    this.meta.set(tenantId, list);
  }

  select(tenantId: string, matchers: LabelMatcher[], startMs: number, endMs: number): Promise<StoredSeries[]> {
    const match = labelsMatcher(matchers);
    const out: StoredSeries[] = [];
    for (const s of this.tenants.get(tenantId)?.values() ?? []) {
      if (!match(s.labels)) continue;
      const samples = s.samples.filter((x) => x.t >= startMs && x.t <= endMs);
      if (samples.length > 0) out.push({ labels: { ...s.labels }, samples: samples.map((x) => ({ ...x })) });
    }
    return Promise.resolve(out);
  }

  async series(tenantId: string, matchers: LabelMatcher[][], startMs: number, endMs: number): Promise<Record<string, string>[]> {
    return (await this.selectAny(tenantId, matchers, startMs, endMs)).map((s) => s.labels);
  }

  async labelNames(tenantId: string, matchers: LabelMatcher[][], startMs: number, endMs: number): Promise<string[]> {
    const names = new Set<string>();
    for (const s of await this.selectAny(tenantId, matchers, startMs, endMs)) for (const k of Object.keys(s.labels)) names.add(k);
    return [...names].sort();
  }

  async labelValues(tenantId: string, name: string, matchers: LabelMatcher[][], startMs: number, endMs: number): Promise<string[]> {
    const values = new Set<string>();
    for (const s of await this.selectAny(tenantId, matchers, startMs, endMs)) {
      const v = labelValue(s.labels, name);
      if (v !== '') values.add(v);
    }
    return [...values].sort();
  }

  metadata(tenantId: string, metric?: string, limit?: number): Promise<MetricMetadata[]> {
    const list = (this.meta.get(tenantId) ?? []).filter((m) => metric === undefined || m.name === metric);
    list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (limit === undefined || limit <= 0) return Promise.resolve(list.map((m) => ({ ...m })));
    const names = new Set<string>();
    return Promise.resolve(list.filter((m) => {
      if (!names.has(m.name) && names.size >= limit) return false;
      names.add(m.name);
      return true;
    }).map((m) => ({ ...m })));
  }

  private async selectAny(tenantId: string, sets: LabelMatcher[][], startMs: number, endMs: number): Promise<StoredSeries[]> {
    if (sets.length === 0) return this.select(tenantId, [], startMs, endMs);
    const seen = new Map<string, StoredSeries>();
    for (const set of sets) for (const s of await this.select(tenantId, set, startMs, endMs)) seen.set(seriesKey(s.labels), s);
    return [...seen.values()];
  }
}

/** Inserts in time order; a second sample at the same timestamp replaces the first. */
function insertSample(samples: StoredSample[], s: StoredSample): void {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((samples[mid]?.t ?? 0) < s.t) lo = mid + 1;
    else hi = mid;
  }
  if (samples[lo]?.t === s.t) samples[lo] = s;
  else samples.splice(lo, 0, s);
}
