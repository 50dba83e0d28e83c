// A LogsQL query as a metrics query (VictoriaLogs /select/logsql/stats_query and stats_query_range,
// https://docs.victoriametrics.com/victorialogs/querying/#querying-log-stats): its last `| stats` pipe makes the
// series, the `by (…)` fields their labels, every other result a metric named after it. The rules follow
// VictoriaLogs' Query.GetStatsByFieldsAddGroupingByTime (lib/logstorage/parser.go).
import type { LogsqlQuery, Pipe, StatsGroup } from '../model/logsql-ast.js';
import { errors } from '../errors.js';

export interface StatsShape {
  /** The `by (…)` fields of the last stats pipe: the series labels. */
  labels: string[];
  /** Its results that survive the pipes behind it: one series each per group. */
  metrics: string[];
}

type StatsPipe = Extract<Pipe, { kind: 'stats' }>;

function lastStatsIndex(q: LogsqlQuery): number {
  for (let i = q.pipes.length - 1; i >= 0; i--) if (q.pipes[i]?.kind === 'stats') return i;
  throw errors.badRequest('invalid query: it must contain a `| stats ...` pipe, whose results become the metrics ' +
    '(for example `* | stats by (level) count()`)');
}

/**
 * The labels and metrics of the last stats pipe; 400 when there is none, when a pipe behind it drops a label
 * (`fields` without it, `delete` of it) or when no metric is left. VictoriaLogs allows only sort, fields and delete
 * (and pipes we do not have) behind it; `limit` and `offset` are kept here too, as they change no field.
 */
export function statsShape(q: LogsqlQuery): StatsShape {
  const at = lastStatsIndex(q);
  const stats = q.pipes[at] as StatsPipe;
  const labels = stats.by.map((g) => g.field);
  let metrics = stats.funcs.map((f) => f.name);
  for (const pipe of q.pipes.slice(at + 1)) {
    if (pipe.kind === 'fields') {
      const dropped = labels.find((l) => !pipe.fields.includes(l));
      if (dropped !== undefined) throw errors.badRequest(`invalid query: the \`| fields\` pipe after \`| stats\` drops the by field '${dropped}'`);
      metrics = metrics.filter((m) => pipe.fields.includes(m));
    } else if (pipe.kind === 'delete') {
      const dropped = labels.find((l) => pipe.fields.includes(l));
      if (dropped !== undefined) throw errors.badRequest(`invalid query: the \`| delete\` pipe after \`| stats\` drops the by field '${dropped}'`);
      metrics = metrics.filter((m) => !pipe.fields.includes(m));
    }
  }
  if (metrics.length === 0) throw errors.badRequest('invalid query: no stats result is left to return as a metric');
  return { labels, metrics };
}

/**
 * The query with `_time:step` (offset by `offsetNs`) in every stats pipe's `by (…)`, replacing a `_time` group
 * there, as stats_query_range buckets by time; 400 when a pipe before the last stats pipe drops `_time`.
 */
export function withTimeBuckets(q: LogsqlQuery, stepNs: bigint, offsetNs: bigint): LogsqlQuery {
  const at = lastStatsIndex(q);
  for (const pipe of q.pipes.slice(0, at)) {
    const drops = (pipe.kind === 'fields' && !pipe.fields.includes('_time')) || (pipe.kind === 'delete' && pipe.fields.includes('_time'));
    if (drops) {
      throw errors.badRequest(`invalid query: the \`| ${pipe.kind}\` pipe before \`| stats\` drops _time, which stats_query_range buckets by`);
    }
  }
  for (const pipe of q.pipes) {
    if (pipe.kind === 'stats' && pipe.funcs.some((f) => f.name === '_time')) {
      throw errors.badRequest('invalid query: a stats result named _time would override the time buckets of stats_query_range');
    }
  }
  const bucket: StatsGroup = { field: '_time', bucketNs: stepNs };
  if (offsetNs !== 0n) bucket.offsetNs = offsetNs;
  const pipes = q.pipes.map((pipe): Pipe => {
    if (pipe.kind !== 'stats') return pipe;
    const by = pipe.by.some((g) => g.field === '_time')
      ? pipe.by.map((g) => (g.field === '_time' ? bucket : g))
      : [...pipe.by, bucket];
    return { ...pipe, by };
  });
  return { filter: q.filter, pipes };
}
