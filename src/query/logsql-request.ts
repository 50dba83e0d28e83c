// A LogsQL text from a request → its syntax tree, or 400 with the position (DESIGN §4). Every route that takes a
// query (read-back, live tail, saved searches) goes through here, so each one gets the same bounds and wording.
import { parseLogsql, LogsqlSyntaxError } from './logsql/parser.js';
import type { Filter, LogsqlQuery } from '../model/logsql-ast.js';
import { errors } from '../errors.js';
import { msToNs } from '../model/time.js';

/** Bounds that keep a query inside what the parser's stack and DuckDB's expression depth (1000) take. */
const MAX_QUERY_BYTES = 64 * 1024;
const MAX_FILTER_DEPTH = 100;
const MAX_PIPES = 50;

export function compileLogsql(text: string, nowMs: number): LogsqlQuery {
  return compileLogsqlAt(text, msToNs(nowMs));
}

/** As compileLogsql, with relative times (`_time:5m`) resolved against `nowNs` (VictoriaLogs' `time` argument). */
export function compileLogsqlAt(text: string, nowNs: bigint): LogsqlQuery {
  if (text.length > MAX_QUERY_BYTES) throw errors.badRequest(`invalid query: longer than ${MAX_QUERY_BYTES} characters`);
  let query: LogsqlQuery;
  try {
    query = parseLogsql(text, nowNs);
  } catch (e) {
    if (e instanceof LogsqlSyntaxError) throw errors.badRequest(`invalid query: ${e.message}`);
    if (e instanceof RangeError) throw errors.badRequest(`invalid query: nested deeper than ${MAX_FILTER_DEPTH} levels`);
    throw e;
  }
  if (filterDepth(query.filter) > MAX_FILTER_DEPTH) throw errors.badRequest(`invalid query: nested deeper than ${MAX_FILTER_DEPTH} levels`);
  if (query.pipes.length > MAX_PIPES) throw errors.badRequest(`invalid query: more than ${MAX_PIPES} pipes`);
  return query;
}

function filterDepth(f: Filter): number {
  let depth = 1;
  const stack: [Filter, number][] = [[f, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [node, d] = top;
    depth = Math.max(depth, d);
    if (node.kind === 'and' || node.kind === 'or') for (const child of node.filters) stack.push([child, d + 1]);
    else if (node.kind === 'not') stack.push([node.filter, d + 1]);
  }
  return depth;
}
