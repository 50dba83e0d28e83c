// The fixed English the translator knows (issue 10 item 2): words that carry no filter, severities, negations,
// numbers. Everything else must be a time expression or link to the tenant's own schema (schema.ts).

/** Words that ask for something but filter nothing. */
export const STOP_WORDS = new Set([
  'a', 'an', 'the', 'all', 'any', 'me', 'my', 'our', 'us', 'i', 'we', 'you', 'show', 'list', 'find', 'get', 'give',
  'display', 'fetch', 'search', 'look', 'see', 'view', 'what', 'which', 'where', 'who', 'are', 'is', 'was', 'were',
  'be', 'been', 'there', 'did', 'do', 'does', 'have', 'has', 'had', 'happened', 'occurred', 'that', 'this', 'these',
  'those', 'it', 'its', 'please', 'can', 'could', 'would', 'let', "let's", 'tell', 'about', 'up', 'some', 'recent',
  'latest', 'logged', 'seen', 'came', 'coming', 'produced', 'emitted', 'raised', 'thrown', 'happening', 'occurring',
  'current', 'currently', 'right', 'now', 'so', 'far', 'with', 'having', 'whose', 'want', 'need', 'to', 'pull',
  'produce', 'emit', 'generate', 'generated', 'write', 'wrote', 'written', 'throw', 'threw', 'raise', 'saw', 'got',
  'hit', 'experienced', 'report', 'reported', 'where', 'when',
]);

/** Prepositions that may stand before a value ("from checkout", "on host web-3", "for customer 42"). */
export const PREPOSITIONS = new Set(['from', 'in', 'on', 'of', 'for', 'at', 'within', 'inside', 'via']);

/** Words that join items of a list: the items share a negation and, for one field, are alternatives. */
export const CONNECTORS = new Set(['and', 'or', 'nor', '&', ',', 'plus', 'either', 'neither']);

/** Words (and two-word phrases) that negate what follows: "not from cart", "except payments", "excluding debug". */
export const NEGATIONS = new Set(['not', 'except', 'excluding', 'exclude', 'excluded', 'without', 'but', 'no', 'non', 'minus', 'ignoring', 'ignore', 'omitting', 'omit', 'besides']);
export const NEGATION_PAIRS = new Set(['other than', 'apart from', 'aside from', 'but not', 'except for', 'not from', 'leaving out']);

/** What the signal words are: "logs" asks for entries, not for a field called logs. */
export const LOG_WORDS = new Set(['logs', 'log', 'entries', 'entry', 'events', 'event', 'lines', 'line', 'messages', 'records', 'record']);
export const TRACE_WORDS = new Set(['traces', 'trace', 'spans', 'span', 'transactions']);
export const METRIC_WORDS = new Set(['metric', 'metrics', 'series', 'timeseries', 'graph', 'chart', 'plot']);

/**
 * Severity words → the level they mean. The store keeps the level as `severity`, which LogsQL reaches as `level`
 * (src/query/logsql/ast.ts canonicalField); a `level:<word>` filter is a case-insensitive substring match, so
 * `level:warn` also finds `WARNING`.
 */
export const SEVERITIES: Record<string, string> = {
  error: 'error', errors: 'error', erroring: 'error', err: 'error',
  warning: 'warn', warnings: 'warn', warn: 'warn', warns: 'warn',
  fatal: 'fatal', fatals: 'fatal', critical: 'critical', crit: 'critical', panic: 'panic', panics: 'panic',
  info: 'info', informational: 'info', notice: 'notice', notices: 'notice',
  debug: 'debug', debugging: 'debug',
};

const NUMBER_WORDS: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, fifteen: 15, twenty: 20, thirty: 30, forty: 40, 'forty-five': 45, fifty: 50, sixty: 60,
  ninety: 90, hundred: 100, couple: 2, few: 3,
};

/** "5", "five", "a" → the number; undefined otherwise. */
export function numberWord(w: string | undefined): number | undefined {
  if (w === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(w)) return Number(w);
  return NUMBER_WORDS[w];
}

/** Plural and verb endings off: "services" → "service", "payments" → "payment", "hosts" → "host". */
export function stem(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
  if (w.length > 4 && /(ses|xes|ches|shes)$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) return w.slice(0, -1);
  return w;
}
