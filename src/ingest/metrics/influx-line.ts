/**
 * InfluxDB line protocol (`POST /write` v1, `POST /api/v2/write` v2, app plane; wire-formats.md §3.15):
 * `measurement[,tagk=tagv…] fieldk=fieldv[,fieldk=fieldv…] [timestamp]`, one point per line.
 *
 * Escaping (§3.15): a backslash escapes `,` and space in the measurement; `,` `=` and space in tag keys, tag
 * values and field keys; `"` and `\` inside double-quoted string field values. Any other backslash is a
 * literal backslash, so a name cannot end in a backslash. Blank lines, `#` comment lines and CRLF endings are
 * accepted. Newlines inside values are not (§3.15 refs).
 *
 * Storage, as Telegraf's Prometheus output names things: each numeric field is one sample named
 * `<measurement>_<field>` (just `<field>` for measurement `prometheus`), sanitised to a Prometheus name;
 * tags become labels. Floats, integers (`1i`) and unsigned (`1u`, accepted on v1 as well) are stored as
 * doubles, booleans as 1 / 0. String fields are not numbers: they are not stored, and are counted in
 * `dropped.string_field`. The v1 `db` or v2 `bucket` parameter becomes a `db` label (unless a tag already
 * gives one), so two databases never merge into one series. Without a timestamp a point takes the time of
 * receipt. `precision` takes the v1 and v2 words together: n ns u us µ ms s m h (default ns).
 * A bad line refuses the whole body: 400 `line N: …`, nothing kept.
 */
import { errors } from '../../errors.js';
import { setLabel, type MetricSample } from '../../model/metric.js';
import type { MetricsRequest, ParsedMetrics } from './parsed-metrics.js';
import { promLabelName, promMetricName } from './prom-names.js';
import { utf8Text } from '../utf8-text.js';

export type InfluxFieldValue =
  | { type: 'float'; value: number }
  | { type: 'integer'; value: bigint }
  | { type: 'unsigned'; value: bigint }
  | { type: 'string'; value: string }
  | { type: 'boolean'; value: boolean };

export interface InfluxPoint {
  measurement: string;
  tags: [string, string][];
  fields: [string, InfluxFieldValue][];
  /** As written, in the request's precision. */
  timestamp?: bigint;
  /** 1-based line of the body. */
  line: number;
}

/** Unit of one timestamp tick, in ms as a fraction n/d (v1 and v2 `precision` words, §3.15). */
const PRECISION: Readonly<Record<string, readonly [bigint, bigint]>> = {
  n: [1n, 1_000_000n], ns: [1n, 1_000_000n],
  u: [1n, 1000n], us: [1n, 1000n], 'µ': [1n, 1000n], 'μ': [1n, 1000n], 'µs': [1n, 1000n], 'μs': [1n, 1000n],
  ms: [1n, 1n], s: [1000n, 1n], m: [60_000n, 1n], h: [3_600_000n, 1n],
};

const BOOLEANS: Readonly<Record<string, boolean>> = {
  t: true, T: true, true: true, True: true, TRUE: true, f: false, F: false, false: false, False: false, FALSE: false,
};
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

const MEASUREMENT_ESCAPES = ', ';
const KEY_ESCAPES = ',= ';

class LineParser {
  private pos = 0;

  constructor(private readonly s: string, private readonly line: number) {}

  private fail(what: string): never {
    throw errors.badRequest(`line ${this.line}: ${what}`);
  }

  /** Text up to an unescaped stop character; `\x` with x in `escapes` is x, any other backslash is literal. */
  private token(stops: string, escapes: string): string {
    let out = '';
    const s = this.s;
    while (this.pos < s.length) {
      const c = s.charAt(this.pos);
      if (c === '\\' && this.pos + 1 < s.length && escapes.includes(s.charAt(this.pos + 1))) {
        out += s.charAt(this.pos + 1);
        this.pos += 2;
      } else if (stops.includes(c)) {
        break;
      } else {
        out += c;
        this.pos++;
      }
    }
    return out;
  }

  private peek(): string {
    return this.s.charAt(this.pos);
  }

  private skipSpaces(): void {
    while (this.peek() === ' ') this.pos++;
  }

  parse(): InfluxPoint {
    const measurement = this.token(', ', MEASUREMENT_ESCAPES);
    if (measurement === '') this.fail('missing measurement');
    const tags: [string, string][] = [];
    while (this.peek() === ',') {
      this.pos++;
      const key = this.token(',= ', KEY_ESCAPES);
      if (this.peek() !== '=' || key === '') this.fail(`tag ${JSON.stringify(key)} has no key=value form`);
      this.pos++;
      // An unescaped `=` in a tag value is taken literally, as clients that do not escape it expect.
      const value = this.token(', ', KEY_ESCAPES);
      if (value === '') this.fail(`tag ${JSON.stringify(key)} has an empty value`);
      tags.push([key, value]);
    }
    if (this.peek() !== ' ') this.fail('missing fields (a space must separate them from the measurement and tags)');
    this.skipSpaces();
    const fields: [string, InfluxFieldValue][] = [];
    for (;;) {
      const key = this.token(',= ', KEY_ESCAPES);
      if (key === '') this.fail('missing field key');
      if (this.peek() !== '=') this.fail(`field ${JSON.stringify(key)} has no value`);
      this.pos++;
      fields.push([key, this.fieldValue(key)]);
      if (this.peek() !== ',') break;
      this.pos++;
    }
    const point: InfluxPoint = { measurement, tags, fields, line: this.line };
    this.skipSpaces();
    const ts = this.token(' \t', '');
    if (ts !== '') {
      if (!/^-?\d+$/.test(ts)) this.fail(`invalid timestamp ${JSON.stringify(ts)}`);
      const t = BigInt(ts);
      if (t < INT64_MIN || t > INT64_MAX) this.fail(`timestamp ${ts} is out of the int64 range`);
      point.timestamp = t;
    }
    if (this.s.slice(this.pos).trim() !== '') this.fail(`unexpected text after the ${ts !== '' ? 'timestamp' : 'fields'}`);
    return point;
  }

  private fieldValue(key: string): InfluxFieldValue {
    if (this.peek() === '"') return { type: 'string', value: this.quoted(key) };
    const raw = this.token(', ', '');
    const what = `field ${JSON.stringify(key)}`;
    const bool = BOOLEANS[raw];
    if (bool !== undefined) return { type: 'boolean', value: bool };
    if (/^[+-]?\d+i$/.test(raw)) {
      const value = BigInt(raw.slice(0, -1));
      if (value < INT64_MIN || value > INT64_MAX) this.fail(`${what}: integer ${raw} is out of the int64 range`);
      return { type: 'integer', value };
    }
    if (/^\d+u$/.test(raw)) {
      const value = BigInt(raw.slice(0, -1));
      if (value > UINT64_MAX) this.fail(`${what}: unsigned ${raw} is out of the uint64 range`);
      return { type: 'unsigned', value };
    }
    if (FLOAT.test(raw)) return { type: 'float', value: Number(raw) };
    return this.fail(raw === '' ? `${what} has an empty value` : `${what}: invalid value ${JSON.stringify(raw)}`);
  }

  /** A double-quoted string field value; `\"` and `\\` are the only escapes. */
  private quoted(key: string): string {
    const s = this.s;
    let out = '';
    this.pos++;
    while (this.pos < s.length) {
      const c = s.charAt(this.pos);
      const next = s.charAt(this.pos + 1);
      if (c === '\\' && (next === '"' || next === '\\')) {
        out += next;
        this.pos += 2;
      } else if (c === '"') {
        this.pos++;
        return out;
      } else {
        out += c;
        this.pos++;
      }
    }
    return this.fail(`field ${JSON.stringify(key)}: unterminated string`);
  }
}

/** Every point of a body, or 400 naming the first bad line. */
export function parseInfluxPoints(text: string): InfluxPoint[] {
  const points: InfluxPoint[] = [];
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const start = line.search(/[^ \t]/);
    if (start < 0 || line.charAt(start) === '#') return;
    points.push(new LineParser(line.slice(start), i + 1).parse());
  });
  return points;
}

function precisionOf(query: URLSearchParams): readonly [bigint, bigint] {
  const word = query.get('precision') ?? '';
  if (word === '') return [1n, 1_000_000n];
  const p = PRECISION[word];
  if (p === undefined) throw errors.badRequest(`unknown precision ${JSON.stringify(word)} (use n, ns, u, us, µ, ms, s, m or h)`);
  return p;
}

/** ts · n / d, floored (timestamps before 1970 round down, as integer ms do). */
function toMs(ts: bigint, [n, d]: readonly [bigint, bigint]): number {
  const x = ts * n;
  let q = x / d;
  if (x % d !== 0n && x < 0n) q -= 1n;
  return Number(q);
}

export function parseInfluxLines(body: Buffer, req: MetricsRequest): ParsedMetrics {
  const precision = precisionOf(req.query);
  const points = parseInfluxPoints(utf8Text(body));
  const db = req.query.get('db') ?? req.query.get('bucket') ?? '';
  const samples: MetricSample[] = [];
  let strings = 0;
  let invalidNames = 0;
  for (const p of points) {
    const labels: Record<string, string> = {};
    if (db !== '') labels.db = db;
    for (const [k, v] of p.tags) {
      const label = promLabelName(k);
      if (label !== '' && label !== '__name__') setLabel(labels, label, v);
    }
    const timeMs = p.timestamp === undefined ? req.nowMs : toMs(p.timestamp, precision);
    for (const [key, field] of p.fields) {
      if (field.type === 'string') {
        strings++;
        continue;
      }
      const name = promMetricName(p.measurement === 'prometheus' ? key : `${p.measurement}_${key}`);
      if (name === '') {
        invalidNames++;
        continue;
      }
      const value = field.type === 'boolean' ? (field.value ? 1 : 0) : Number(field.value);
      samples.push({ name, labels, timeMs, value });
    }
  }
  const parsed: ParsedMetrics = { samples, metadata: [], stats: { samples: samples.length, histograms: 0, exemplars: 0 } };
  if (strings > 0 || invalidNames > 0) {
    parsed.dropped = {};
    if (strings > 0) parsed.dropped.string_field = strings;
    if (invalidNames > 0) parsed.dropped.invalid_name = invalidNames;
  }
  return parsed;
}
