// Literal syntax shared by the PromQL parser and the HTTP API parameters, spelled as Go spells it: PromQL
// strings are Go string literals (strconv.Unquote), numbers go through strconv.ParseInt(s, 0, 64) then
// ParseFloat, durations are Prometheus's model.ParseDuration, and floats are printed as
// strconv.FormatFloat(v, 'f', -1, 64) in API replies.

const DURATION_RE = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const DURATION_UNITS_MS = [365 * 86_400_000, 7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000, 1];

/** model.ParseDuration: `1h30m`, `5m`, `250ms`, `0`; units in descending order, each at most once. */
export function parseDurationMs(text: string): number | undefined {
  if (text === '0') return 0;
  if (text === '') return undefined;
  const m = DURATION_RE.exec(text);
  if (!m) return undefined;
  let ms = 0;
  for (let i = 0; i < DURATION_UNITS_MS.length; i++) {
    const part = m[i + 1];
    if (part !== undefined) ms += Number(part) * (DURATION_UNITS_MS[i] ?? 0);
  }
  return ms;
}

/** strconv.ParseFloat: decimal, `Inf`/`Infinity` with sign, `NaN`, hex integers; no surrounding space. */
export function parseGoFloat(text: string): number | undefined {
  if (/^[+-]?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?$/.test(text)) {
    if (/(^|[^\d])_|_($|[^\d])/.test(text)) return undefined;
    return Number(text.replace(/_/g, ''));
  }
  if (/^[+-]?inf(inity)?$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(text)) return Number.NaN;
  if (/^[+-]?0[xX][0-9a-fA-F]+$/.test(text)) {
    const v = Number.parseInt(text.replace(/^[+-]/, '').slice(2), 16);
    return text.startsWith('-') ? -v : v;
  }
  return undefined;
}

/** A PromQL number literal: ParseInt(s, 0, 64) first (so `0x1f` and octal `017`), then ParseFloat. */
export function parseNumberLiteral(text: string): number | undefined {
  const sign = text.startsWith('-') ? -1 : 1;
  const body = text.replace(/^[+-]/, '');
  if (/^0[0-7]+$/.test(body)) return sign * Number.parseInt(body, 8);
  if (/^0[oO][0-7]+$/.test(body)) return sign * Number.parseInt(body.slice(2), 8);
  if (/^0[bB][01]+$/.test(body)) return sign * Number.parseInt(body.slice(2), 2);
  const f = parseGoFloat(body);
  if (f !== undefined) return sign * f;
  // Newer PromQL accepts a duration where a number goes: its value in seconds.
  const d = parseDurationMs(body);
  return d === undefined ? undefined : (sign * d) / 1000;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\',
};

/** strconv.Unquote for `"…"`, `'…'` and raw `` `…` `` literals; undefined when malformed. */
export function unquoteString(lit: string): string | undefined {
  const q = lit[0];
  if (lit.length < 2 || lit[lit.length - 1] !== q) return undefined;
  const body = lit.slice(1, -1);
  if (q === '`') return body.includes('`') ? undefined : body.replace(/\r/g, '');
  if (q !== '"' && q !== "'") return undefined;
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? '';
    if (c === '\n' || c === q) return undefined;
    if (c !== '\\') {
      const cp = body.codePointAt(i) ?? 0;
      if (cp > 0xffff) i++;
      bytes.push(...enc.encode(String.fromCodePoint(cp)));
      continue;
    }
    const e = body[++i];
    if (e === undefined) return undefined;
    if (e in SIMPLE_ESCAPES) bytes.push(...enc.encode(SIMPLE_ESCAPES[e] ?? ''));
    else if (e === q) bytes.push(q.charCodeAt(0));
    else if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) return undefined;
      const v = Number.parseInt(hex, 16);
      i += n;
      if (e === 'x') bytes.push(v);
      else if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) return undefined;
      else bytes.push(...enc.encode(String.fromCodePoint(v)));
    } else if (/[0-7]/.test(e)) {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct)) return undefined;
      const v = Number.parseInt(oct, 8);
      if (v > 255) return undefined;
      bytes.push(v);
      i += 2;
    } else return undefined;
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** strconv.FormatFloat(v, 'f', -1, 64): shortest digits that round-trip, never an exponent; NaN, +Inf, -Inf. */
export function formatGoFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Object.is(v, -0)) return '-0';
  const s = String(v);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign = '', int = '', frac = '', expText = '0'] = m;
  const digits = int + frac;
  const point = int.length + Number(expText);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
