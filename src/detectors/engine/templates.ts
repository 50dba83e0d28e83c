// Annotation templates (DESIGN §8: summary, description, runbook URL), the part of Prometheus' alerting templates
// (https://prometheus.io/docs/prometheus/latest/configuration/template_reference/) that alert annotations use:
// `{{ $value }}`, `{{ $labels.service }}`, `{{ index $labels "http.route" }}`, the functions `humanize`,
// `humanizePercentage` and `printf "%.2f"`, called as `f x` or piped as `x | f`. A detector is checked when it is
// saved (an unknown expression is a 422 naming it), so expansion at evaluation time never fails.

export interface TemplateData {
  value: number | null;
  labels: Readonly<Record<string, string>>;
}

const ACTION_RE = /\{\{-?\s*([\s\S]*?)\s*-?\}\}/g;
const PRINTF_RE = /^printf\s+"(%(?:\.(\d{1,2}))?[fdgs])"\s+(.+)$/;

type Value = { num: number | null } | { text: string };

class TemplateError extends Error {}

/** Prometheus prints `$value` as Go's %v of a float64: shortest form, `+Inf`, `NaN`. */
export function formatValue(v: number | null): string {
  if (v === null) return '';
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** Go's %.4g: four significant digits, no trailing zeros. */
function g4(v: number): string {
  if (!Number.isFinite(v)) return formatValue(v);
  return String(Number(v.toPrecision(4)));
}

/** Prometheus' `humanize`: SI prefixes, four significant digits (template/template.go). */
export function humanize(v: number): string {
  if (v === 0 || !Number.isFinite(v)) return g4(v);
  let x = v;
  let prefix = '';
  if (Math.abs(x) >= 1) {
    for (const p of ['k', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y']) {
      if (Math.abs(x) < 1000) break;
      prefix = p;
      x /= 1000;
    }
  } else {
    for (const p of ['m', 'u', 'n', 'p', 'f', 'a', 'z', 'y']) {
      if (Math.abs(x) >= 1) break;
      prefix = p;
      x *= 1000;
    }
  }
  return g4(x) + prefix;
}

function asText(v: Value): string {
  return 'text' in v ? v.text : formatValue(v.num);
}

function asNumber(v: Value): number | null {
  if ('num' in v) return v.num;
  const n = Number(v.text);
  return v.text.trim() === '' || Number.isNaN(n) ? null : n;
}

function operand(expr: string, data: TemplateData): Value {
  const e = expr.trim();
  if (e === '$value' || e === '.Value') return { num: data.value };
  const dotted = /^(?:\$labels|\.Labels)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(e);
  if (dotted?.[1] !== undefined) return { text: data.labels[dotted[1]] ?? '' };
  const indexed = /^index\s+(?:\$labels|\.Labels)\s+"([^"]*)"$/.exec(e);
  if (indexed?.[1] !== undefined) return { text: data.labels[indexed[1]] ?? '' };
  const quoted = /^"([^"]*)"$/.exec(e);
  if (quoted?.[1] !== undefined) return { text: quoted[1] };
  if (/^-?\d+(\.\d+)?$/.test(e)) return { num: Number(e) };
  const call = /^(humanize|humanizePercentage)\s+(.+)$/.exec(e);
  if (call?.[1] !== undefined && call[2] !== undefined) return apply(call[1], operand(call[2], data));
  const printf = PRINTF_RE.exec(e);
  if (printf?.[1] !== undefined && printf[3] !== undefined) return printfValue(printf[1], printf[2], operand(printf[3], data));
  throw new TemplateError(`unsupported template expression {{ ${e} }}`);
}

function apply(fn: string, v: Value): Value {
  const n = asNumber(v);
  if (n === null) return { text: '' };
  if (fn === 'humanize') return { text: humanize(n) };
  if (fn === 'humanizePercentage') return { text: `${g4(n * 100)}%` };
  throw new TemplateError(`unsupported template function ${fn}`);
}

function printfValue(format: string, digits: string | undefined, v: Value): Value {
  const verb = format.at(-1);
  if (verb === 's') return { text: asText(v) };
  const n = asNumber(v);
  if (n === null) return { text: '' };
  if (verb === 'd') return { text: String(Math.trunc(n)) };
  if (verb === 'g') return { text: formatValue(n) };
  return { text: n.toFixed(digits === undefined ? 6 : Number(digits)) };
}

function evaluate(expr: string, data: TemplateData): string {
  // `x | f | g` = g(f(x)); a pipe stage is a function name (or a printf format) taking the value as its last argument.
  const stages = expr.split('|').map((s) => s.trim());
  let v = operand(stages[0] ?? '', data);
  for (const stage of stages.slice(1)) {
    if (stage === 'humanize' || stage === 'humanizePercentage') v = apply(stage, v);
    else {
      const m = /^printf\s+"(%(?:\.(\d{1,2}))?[fdgs])"$/.exec(stage);
      if (m?.[1] === undefined) throw new TemplateError(`unsupported template function ${stage}`);
      v = printfValue(m[1], m[2], v);
    }
  }
  return asText(v);
}

/** The template with every `{{ … }}` expanded; an unsupported expression is left as written. */
export function expandTemplate(template: string, data: TemplateData): string {
  return template.replace(ACTION_RE, (whole, expr: string) => {
    try {
      return evaluate(expr, data);
    } catch (e) {
      if (e instanceof TemplateError) return whole;
      throw e;
    }
  });
}

/** Null when every expression of the template is supported, else what is wrong (for the 422 of a save). */
export function templateProblem(template: string): string | null {
  const probe: TemplateData = { value: 1, labels: {} };
  for (const m of template.matchAll(ACTION_RE)) {
    try {
      evaluate(m[1] ?? '', probe);
    } catch (e) {
      if (e instanceof TemplateError) return e.message;
      throw e;
    }
  }
  const open = template.split('{{').length - 1;
  const close = template.split('}}').length - 1;
  return open === close ? null : 'unbalanced {{ }}';
}

export function expandAnnotations(templates: Readonly<Record<string, string>>, data: TemplateData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, t] of Object.entries(templates)) out[k] = expandTemplate(t, data);
  return out;
}
