// A LogsIntent → LogsQL text in the DESIGN §9 shape (`_time:1h service:checkout level:error`), with the pipes
// of VictoriaLogs (`| stats by (service) count()`, `| sort by (hits desc) | limit 5`). Quoting follows our
// lexer (src/query/logsql/lexer.ts): a bare word may not hold spaces, `(),|:*` or quotes, nor start with `-`/`!`.
import type { Clause, Condition, LogsIntent } from './logs-intent.js';

const KEYWORDS = new Set(['and', 'or', 'not', 'in']);

/** A value as a LogsQL token: bare when the lexer reads it back as one word, else double-quoted. */
export function lq(v: string): string {
  if (/^[\p{L}\p{N}_][\p{L}\p{N}_.\-/@]*$/u.test(v) && !KEYWORDS.has(v.toLowerCase())) return v;
  return `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** A field name as LogsQL writes it (`host.name` is fine bare; `my field` needs quotes). */
function fieldName(f: string): string {
  return lq(f);
}

function clauseText(c: Clause): string {
  switch (c.kind) {
    case 'value':
      if (c.match === 'stream') return `_stream:{${c.field}="${c.value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"}`;
      return c.match === 'exact' ? `${fieldName(c.field)}:=${lq(c.value)}` : `${fieldName(c.field)}:${lq(c.value)}`;
    case 'phrase':
      return `"${c.text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    case 'level':
      return `level:${lq(c.level)}`;
    case 'range':
      return `${fieldName(c.field)}:${c.op}${c.value}`;
    case 'exists':
      return `${fieldName(c.field)}:*`;
  }
}

/** Alternatives of one field or of the level are ORed ("from checkout or cart"); everything else is ANDed. */
function groupKey(c: Clause): string | undefined {
  if (c.kind === 'level') return 'level';
  if (c.kind === 'value') return `value:${c.field}`;
  return undefined;
}

/** DESIGN §9's order: time, the service, other fields, the level, then phrases; negations last. */
function rank(c: Clause): number {
  if (c.kind === 'value') return c.field === 'service' ? 0 : 1;
  if (c.kind === 'level') return 2;
  return c.kind === 'phrase' ? 4 : 3;
}

export function renderFilter(time: string | undefined, conditions: readonly Condition[]): string {
  const parts: string[] = time === undefined ? [] : [time];
  const groups = new Map<string, string[]>();
  const order: (string | string[])[] = [];
  const positive = conditions.filter((c) => !c.negated).sort((a, b) => rank(a.clause) - rank(b.clause));
  for (const cond of positive) {
    const key = groupKey(cond.clause);
    const text = clauseText(cond.clause);
    if (key === undefined) {
      order.push(text);
      continue;
    }
    let g = groups.get(key);
    if (!g) {
      g = [];
      groups.set(key, g);
      order.push(g);
    }
    if (!g.includes(text)) g.push(text);
  }
  for (const item of order) parts.push(typeof item === 'string' ? item : item.length === 1 ? (item[0] ?? '') : `(${item.join(' or ')})`);
  for (const cond of conditions) if (cond.negated) parts.push(`-${clauseText(cond.clause)}`);
  return parts.length === 0 ? '*' : parts.join(' ');
}

export function renderLogsql(time: string | undefined, intent: LogsIntent): string {
  let q = renderFilter(time, intent.conditions);
  const by = intent.groupBy.map((g) => (g.startsWith('_time:') ? g : fieldName(g))).join(', ');
  const fn = intent.count?.uniqField === undefined ? 'count()' : `count_uniq(${fieldName(intent.count.uniqField)})`;
  if (intent.top !== undefined) {
    q += ` | stats by (${by}) ${fn} hits | sort by (hits desc) | limit ${intent.top}`;
  } else if (intent.count !== undefined || intent.groupBy.length > 0) {
    q += by === '' ? ` | stats ${fn}` : ` | stats by (${by}) ${fn}`;
  } else if (intent.newest !== undefined) {
    q += ` | sort by (_time desc) | limit ${intent.newest}`;
  }
  return q;
}
