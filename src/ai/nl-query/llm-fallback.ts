// The optional model for questions the grammar cannot place (issue 10 item 6: "`ai/query` may ask the model when
// the grammar cannot place a question … the model's answer is validated (the query must parse and run) before it
// is returned"). Without ctx.llm nothing here runs.
import type { LlmClient } from '../llm/llm-client.js';
import type { LogSchema, MetricSchema } from './schema.js';

export interface LlmAnswer {
  signal: 'logs' | 'metrics' | 'traces';
  query: string;
  explanation: string;
}

const MAX_LISTED = 40;

/** What the model is told: the three query languages and the tenant's own names, so it can only link to those. */
export function systemPrompt(logs: LogSchema | undefined, metrics: MetricSchema | undefined): string {
  const fields = logs ? [...logs.fields.keys()].slice(0, MAX_LISTED) : [];
  const values = logs
    ? [...logs.values.entries()].slice(0, MAX_LISTED).map(([f, vs]) => `${f}: ${vs.slice(0, 12).map((v) => v.value).join(', ')}`)
    : [];
  return [
    'You translate a question about telemetry into one query. Answer with JSON only:',
    '{"signal": "logs" | "metrics" | "traces", "query": "...", "explanation": "one sentence"}.',
    'logs: LogsQL (VictoriaLogs). Filters are space-separated (AND), `or`, `-` negates; `field:word` is a',
    'case-insensitive substring match, `field:="v"` exact, `"a phrase"` searches the message, `level:error` the',
    'severity, `_time:1h` the last hour. Pipes: `| stats by (field) count()`, `| sort by (hits desc)`, `| limit 5`.',
    'metrics: PromQL, e.g. `sum by (service) (rate(http_requests_total[5m]))`,',
    '`histogram_quantile(0.99, sum by (le) (rate(x_bucket[5m])))`.',
    'traces: a URL query string with keys service, name, min_duration_ms, status=error.',
    `Log fields: ${fields.join(', ') || '(none)'}.`,
    `Known values: ${values.join('; ') || '(none)'}.`,
    `Metric names: ${(metrics?.names ?? []).slice(0, MAX_LISTED).join(', ') || '(none)'}.`,
    'Use only these names. If the question cannot be answered with them, answer {"signal": "logs", "query": ""}.',
  ].join('\n');
}

/** The model's reply as an answer, or undefined when it is not the JSON asked for. */
export function parseLlmReply(reply: string): LlmAnswer | undefined {
  const start = reply.indexOf('{');
  const end = reply.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  let obj: unknown;
  try {
    obj = JSON.parse(reply.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (typeof obj !== 'object' || obj === null) return undefined;
  const { signal, query, explanation } = obj as Record<string, unknown>;
  if (signal !== 'logs' && signal !== 'metrics' && signal !== 'traces') return undefined;
  if (typeof query !== 'string' || query.trim() === '') return undefined;
  return { signal, query: query.trim(), explanation: typeof explanation === 'string' ? explanation : '' };
}

export async function askModel(llm: LlmClient, question: string, logs: LogSchema | undefined, metrics: MetricSchema | undefined): Promise<LlmAnswer | undefined> {
  const reply = await llm.complete([
    { role: 'system', content: systemPrompt(logs, metrics) },
    { role: 'user', content: question },
  ], { maxTokens: 300 });
  return reply === null ? undefined : parseLlmReply(reply);
}
