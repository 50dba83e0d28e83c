// Prometheus names for foreign metrics.
// * OTLP: the OpenTelemetry → Prometheus compatibility rules, as the Collector implements them
//   (open-telemetry/opentelemetry-collector-contrib pkg/translator/prometheus normalize_name.go and
//   normalize_label.go; spec "Prometheus and OpenMetrics Compatibility"). Only ASCII letters and digits
//   survive, so every name is a legacy Prometheus name that PromQL takes unquoted.
// * Influx line protocol: Telegraf's Prometheus serializer (influxdata/telegraf
//   plugins/serializers/prometheus convert.go): `<measurement>_<field>`, invalid runes → `_`.
import { setLabel } from '../../model/metric.js';

/** UCUM units (the c/s form OTel uses) → Prometheus base-unit words. */
const UNIT_WORDS: Readonly<Record<string, string>> = {
  d: 'days', h: 'hours', min: 'minutes', s: 'seconds', ms: 'milliseconds', us: 'microseconds', ns: 'nanoseconds',
  By: 'bytes', KiBy: 'kibibytes', MiBy: 'mebibytes', GiBy: 'gibibytes', TiBy: 'tibibytes',
  KBy: 'kilobytes', MBy: 'megabytes', GBy: 'gigabytes', TBy: 'terabytes',
  m: 'meters', V: 'volts', A: 'amperes', J: 'joules', W: 'watts', g: 'grams',
  Cel: 'celsius', Hz: 'hertz', '1': '', '%': 'percent',
};

/** The unit after `/`: `By/s` → `bytes_per_second`. */
const PER_UNIT_WORDS: Readonly<Record<string, string>> = {
  s: 'second', m: 'minute', h: 'hour', d: 'day', w: 'week', mo: 'month', y: 'year',
};

/** How a metric's kind changes its name: `_total` for counters, `_ratio` for gauges in unit `1`. */
export type OtelNameKind = 'counter' | 'gauge' | 'plain';

const tokens = (s: string): string[] => s.split(/[^A-Za-z0-9]+/).filter((t) => t !== '');
const cleanUp = (s: string): string => tokens(s).join('_');
const annotated = (u: string): boolean => u.includes('{') || u.includes('}');

function unitParts(unit: string): { main: string; per: string } {
  const slash = unit.indexOf('/');
  const rawMain = (slash < 0 ? unit : unit.slice(0, slash)).trim();
  const rawPer = slash < 0 ? '' : unit.slice(slash + 1).trim();
  const main = rawMain === '' || annotated(rawMain) ? '' : cleanUp(UNIT_WORDS[rawMain] ?? rawMain);
  const per = rawPer === '' || annotated(rawPer) ? '' : cleanUp(PER_UNIT_WORDS[rawPer] ?? rawPer);
  return { main, per };
}

/**
 * The Prometheus family name of an OTel metric: invalid characters split the name into tokens joined by `_`
 * (redundant, leading and trailing underscores dropped), the unit appended unless `{annotation}` or already
 * present (`/` → `_per_`), `_total` for monotonic sums, `_ratio` for gauges in unit `1`, `_` before a
 * leading digit.
 */
export function otelMetricName(name: string, unit: string, kind: OtelNameKind): string {
  let parts = tokens(name);
  const { main, per } = unitParts(unit);
  if (main !== '' && !parts.includes(main)) parts.push(main);
  if (per !== '' && !parts.includes(per)) parts.push('per', per);
  if (kind === 'counter') parts = [...parts.filter((t) => t !== 'total'), 'total'];
  if (kind === 'gauge' && unit.trim() === '1') parts = [...parts.filter((t) => t !== 'ratio'), 'ratio'];
  const joined = parts.join('_');
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/** The unit word reported in metadata (`seconds`, `bytes_per_second`, `ratio`, or empty). */
export function otelUnitWord(unit: string): string {
  if (unit.trim() === '1') return 'ratio';
  const { main, per } = unitParts(unit);
  if (per === '') return main;
  return main === '' ? `per_${per}` : `${main}_per_${per}`;
}

/** OTel attribute key → label name: non-alphanumerics → `_`, `key_` before a digit or a single leading `_`. */
export function otelLabelName(key: string): string {
  let label = labelNames.get(key);
  if (label === undefined) {
    if (labelNames.size >= LABEL_NAMES_CACHED) labelNames.clear();
    label = sanitizedLabelName(key);
    labelNames.set(key, label);
  }
  return label;
}

// Every point of a request carries the same few attribute keys: their label names are worked out once (issue 12
// item 2). Bounded: cleared when full.
const LABEL_NAMES_CACHED = 4096;
const labelNames = new Map<string, string>();

function sanitizedLabelName(key: string): string {
  if (key === '') return '';
  const l = key.replace(/[^A-Za-z0-9_]/gu, '_');
  if (/^[0-9]/.test(l)) return `key_${l}`;
  if (l.startsWith('_') && !l.startsWith('__')) return `key${l}`;
  return l;
}

/**
 * Attributes → labels. Keys that sanitise to the same label have their values joined by `;` in the order
 * of the original keys (OTel compatibility spec). Empty values are dropped: an empty label is no label.
 */
export function otelLabels(attrs: readonly (readonly [string, string])[]): Record<string, string> {
  // Nearly always each key has a label of its own: then the labels are the attributes renamed, in their order.
  const out: Record<string, string> = {};
  for (const [key, value] of attrs) {
    const label = otelLabelName(key);
    if (label === '' || label === '__name__' || value === '') continue;
    if (Object.hasOwn(out, label)) return joinedLabels(attrs);
    setLabel(out, label, value);
  }
  return out;
}

/** otelLabels when two keys share a label: their values joined by `;` in the order of the keys. */
function joinedLabels(attrs: readonly (readonly [string, string])[]): Record<string, string> {
  const groups = new Map<string, [string, string][]>();
  for (const [key, value] of attrs) {
    const label = otelLabelName(key);
    if (label === '' || label === '__name__' || value === '') continue;
    const group = groups.get(label);
    if (group) group.push([key, value]);
    else groups.set(label, [[key, value]]);
  }
  const out: Record<string, string> = {};
  for (const [label, group] of groups) {
    group.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    setLabel(out, label, group.map((g) => g[1]).join(';'));
  }
  return out;
}

const LEGACY_METRIC = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LEGACY_LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function telegrafSanitize(name: string, first: RegExp, rest: RegExp): string {
  let out = '';
  let i = 0;
  for (const ch of name) {
    if (i++ === 0) out += first.test(ch) ? ch : '';
    else out += rest.test(ch) ? ch : '_';
  }
  return out.replace(/^_+|_+$/g, '');
}

/** Telegraf's SanitizeMetricName: a valid name as is; else an invalid first rune dropped, others `_`, trimmed. */
export function promMetricName(name: string): string {
  return LEGACY_METRIC.test(name) ? name : telegrafSanitize(name, /^[a-zA-Z_:]$/, /^[0-9a-zA-Z_:]$/);
}

/** Telegraf's SanitizeLabelName. */
export function promLabelName(name: string): string {
  return LEGACY_LABEL.test(name) ? name : telegrafSanitize(name, /^[a-zA-Z_]$/, /^[0-9a-zA-Z_]$/);
}

/**
 * A float as Go's strconv.FormatFloat(v, 'f', -1, 64) writes it, which is how Prometheus's OTLP translator
 * spells `le` and `quantile` values: shortest round-trip digits, never an exponent; `+Inf`, `-Inf`, `NaN`.
 */
export function formatPromFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  const s = String(v);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const negative = s.startsWith('-');
  const [whole = '', frac = ''] = s.slice(negative ? 1 : 0, e).split('.');
  const digits = whole + frac;
  const point = whole.length + Number(s.slice(e + 1));
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${out}` : out;
}
