// What a code block of a runbook is (issue 10 item 4): a LogsQL query, a PromQL query, a command a person runs by
// hand, or text. The fence's language decides when it names one; otherwise the content does, and a query counts only
// when the real parser takes it (src/query/logsql-request.ts, src/query/promql/parse.ts). The LogsQL grammar takes
// almost any words as word filters ("Restart the service" parses), so an unlabelled block is LogsQL only when it
// carries LogsQL's own marks (a `field:value`, a pipe, `_time`, …); PromQL needs a selector, a range or a call.
// Shell blocks are classified here and nothing anywhere runs them.
import { ServiceError } from '../../errors.js';
import { compileLogsql } from '../../query/logsql-request.js';
import { parsePromql, PromqlError } from '../../query/promql/parse.js';
import type { ManualCommand, QuerySignal } from './model.js';

export type CodeKind =
  | { kind: 'query'; query: string; signal: QuerySignal }
  | { kind: 'manual'; manual: ManualCommand }
  | { kind: 'text'; note?: string };

const LOGSQL_LANGS = new Set(['logsql', 'logs', 'vlogs', 'victorialogs', 'logql']);
const PROMQL_LANGS = new Set(['promql', 'prometheus', 'metricsql', 'metrics', 'prom']);
const SHELL_LANGS = new Set(['bash', 'sh', 'shell', 'zsh', 'console', 'kubectl', 'terminal', 'powershell', 'ps1', 'cmd', 'fish', 'shell-session']);
/** First words of a line that make a block a command, whatever its fence says (or does not). */
const COMMANDS = new Set([
  'kubectl', 'helm', 'curl', 'wget', 'ssh', 'scp', 'sudo', 'systemctl', 'journalctl', 'docker', 'podman', 'aws', 'gcloud',
  'az', 'psql', 'mysql', 'redis-cli', 'tail', 'cat', 'less', 'grep', 'ls', 'cd', 'export', 'git', 'make', 'npm', 'node',
  'python', 'python3', 'terraform', 'ansible', 'ansible-playbook', 'nomad', 'consul', 'vault', 'k9s', 'stern', 'service',
  'kill', 'pkill', 'rm', 'mv', 'cp', 'echo', 'sed', 'awk', 'jq', 'dig', 'nslookup', 'ping', 'traceroute', 'top', 'htop',
  'df', 'du', 'free', 'ps', 'netstat', 'ss', 'iptables', 'nginx', 'openssl', 'crontab', 'reboot', 'shutdown',
]);
const LOGSQL_MARKS = /(^|[\s(])(_time|_msg|_stream|_stream_id)\s*:|\|\s*(stats|sort|limit|fields|filter|uniq|top|count|head)\b|(^|[\s(!-])[A-Za-z_][\w.]*:\S|\b(AND|OR|NOT)\b/;
const PROMQL_MARKS = /[A-Za-z_:][\w:]*\s*\{[^}]*(=|!=|=~|!~)|\[\d+[smhdwy]\]|\b(rate|irate|increase|sum|avg|max|min|count|histogram_quantile|topk|bottomk|absent|delta|deriv|avg_over_time|max_over_time|sum_over_time|quantile_over_time)\s*(by\b|without\b|\()/;
const METRIC_NAME = /^[A-Za-z_:][\w:]*_(total|count|sum|bucket|seconds|bytes|ratio|info|percent|errors)$/;
const SQL_START = /^\s*(select|with|insert|update|delete|create)\b/i;

/** The LogsQL text parses (any time filter resolved against `nowMs`); else the parser's complaint. */
export function logsqlProblem(text: string, nowMs: number): string | null {
  try {
    compileLogsql(text, nowMs);
    return null;
  } catch (e) {
    if (e instanceof ServiceError) return e.detail;
    throw e;
  }
}

export function promqlProblem(text: string): string | null {
  try {
    parsePromql(text);
    return null;
  } catch (e) {
    if (e instanceof PromqlError) return e.message;
    throw e;
  }
}

/** Lines without `#` / `//` comment lines; a query block often starts with one saying what it shows. */
function uncommented(code: string): string {
  return code.split('\n').filter((l) => !/^\s*(#|\/\/)/.test(l)).join('\n').trim();
}

function looksLikeCommand(code: string): boolean {
  return code.split('\n').some((line) => {
    const t = line.trim().replace(/^\$\s+/, '');
    const first = /^[\w.-]+/.exec(t)?.[0];
    return line.trim().startsWith('$ ') || (first !== undefined && COMMANDS.has(first) && /\s/.test(t) && !/^[\w.-]+:/.test(t));
  });
}

/** A query by content: PromQL when it has PromQL's shape and parses, LogsQL when it has LogsQL's marks and parses. */
export function guessQuery(text: string, nowMs: number): { query: string; signal: QuerySignal } | null {
  const q = text.trim();
  if (q === '' || SQL_START.test(q)) return null;
  if ((PROMQL_MARKS.test(q) || METRIC_NAME.test(q)) && promqlProblem(q) === null) return { query: q, signal: 'metrics' };
  if (LOGSQL_MARKS.test(q) && logsqlProblem(q, nowMs) === null) return { query: q, signal: 'logs' };
  return null;
}

/** A fenced block (language as written after the fence, lower-cased; '' when none) → what it is. */
export function classifyCode(lang: string, code: string, nowMs: number): CodeKind {
  const language = lang.trim().toLowerCase().split(/[\s{]/)[0] ?? '';
  const body = code.trim();
  if (body === '') return { kind: 'text', note: 'an empty code block' };
  if (SHELL_LANGS.has(language)) return { kind: 'manual', manual: { language, command: body } };
  if (LOGSQL_LANGS.has(language)) {
    const q = uncommented(body);
    const problem = logsqlProblem(q, nowMs);
    return problem === null ? { kind: 'query', query: q, signal: 'logs' } : { kind: 'text', note: `a ${language} block that is not valid LogsQL (${problem}); kept as text` };
  }
  if (PROMQL_LANGS.has(language)) {
    const q = uncommented(body);
    const problem = promqlProblem(q);
    return problem === null ? { kind: 'query', query: q, signal: 'metrics' } : { kind: 'text', note: `a ${language} block that is not valid PromQL (${problem}); kept as text` };
  }
  if (looksLikeCommand(body)) return { kind: 'manual', manual: { language: language === '' ? 'shell' : language, command: body } };
  const guessed = guessQuery(uncommented(body), nowMs);
  if (guessed) return { kind: 'query', ...guessed };
  if (language === 'sql' || SQL_START.test(body)) return { kind: 'text', note: 'an SQL block: this service runs LogsQL and PromQL, not SQL; kept as text' };
  return { kind: 'text' };
}
