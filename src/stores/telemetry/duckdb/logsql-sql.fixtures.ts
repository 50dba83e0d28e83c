// Queries for the tenant-isolation tests of logsql-sql.test.ts: a hand-written table of attacks and a fast-check
// generator of random queries from the LogsQL grammar. User values that must never reach the SQL text carry `zq`.
import fc from 'fast-check';
import { canonicalField } from '../../../model/logsql-ast.js';

/** In every row of tenant B (message, a field, a service): finding it in tenant A's answers is a leak. */
export const MARKER = 'bsecret';

export const adversarialQueries: string[] = [
  '*',
  '',
  MARKER,
  `* OR ${MARKER}`,
  `${MARKER} OR *`,
  `error OR NOT error`,
  'NOT x',
  `NOT NOT ${MARKER}`,
  '!(connection)',
  '-nothing-matches',
  'tenant_id:B',
  'tenant_id:A',
  'tenant_id:*',
  '-tenant_id:A',
  'tenant_id:="A" OR tenant_id:=""',
  `"zq') OR 1=1 --"`,
  `'zq" OR tenant_id = \\'B\\' --'`,
  `"zq\\") OR (1=1"`,
  `_msg:="zq' OR '1'='1"`,
  `service:~"zq|.*"`,
  `_msg:~"(?s).*zq?"`,
  '"%"',
  '"_"',
  '"\\\\"',
  '"\\u0001" OR *',
  '"zq⟦0⟧":* OR "⟦1⟧" OR *',
  '"\\u00011\\u0001":* OR *',
  `"zq\\u00010\\u0001":x OR "zq$1":*`,
  `"zq' OR 1=1 --":*`,
  `"a'b\\"zq":x OR *`,
  '"$.*":*',
  '"*":*',
  '"/":*',
  '"~1":*',
  '"":*',
  '"fields":* OR "tenant_id = $1 OR TRUE":*',
  `b:${MARKER}`,
  'b:*',
  `user:alice OR b:*`,
  '_stream:{tenant_id="B"}',
  '_stream:{tenant_id="A"}',
  '_stream:{tenant_id=~".*"}',
  '_stream:{app!="zq"}',
  `_stream:{"zq\\") OR 1=1 --"="x"} OR *`,
  `_stream:${MARKER}`,
  '_stream:*',
  '_time:[1970-01-01, 2100-01-01)',
  '_time:100000y',
  'dur:>-1e308',
  'status:in(500, 200, "zq\')")',
  '* | stats count()',
  '* | stats by (tenant_id) count()',
  '* | stats by (_stream) count() | sort by (_stream)',
  '* | stats by (b) count_uniq(_msg) u',
  '* | stats by (service) count() n, sum(dur), min(_msg), max(_msg), avg(status)',
  '* | stats by (_time:1d) count() n | stats count() c, sum(n) s',
  '* | stats by ("zq\') OR 1=1 --") count() as "zq x"',
  '* | fields tenant_id, b, _msg',
  '* | delete _msg',
  '* | sort by (tenant_id) | limit 1000',
  '* | sort by ("zq\' DESC; DROP TABLE logs; --" desc)',
  '* | limit 1000000 | offset 0',
  '* | offset 3',
];

const quote = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

const FIELDS = ['service', 'level', 'severity', 'user', 'dur', 'status', 'tenant_id', 'b', '_msg', '_stream', 'trace_id',
  'span_id', 'kubernetes.pod_name', 'q"t', "'", 'a\\b', '$.*', '*', '', 'empty', 'nul', 'ok'];
const fieldName = fc.constantFrom(...FIELDS);
const pipeField = fc.constantFrom(...FIELDS, '_time');
const value = fc.oneof(
  fc.constantFrom('error', 'api', 'alice', 'GET', '200', '5', MARKER, 'A', 'B', "zq') OR 1=1 --", '%', '_', '\\', ''),
  fc.string({ maxLength: 6 }),
);
const word = fc.constantFrom('error', 'connection', 'get', 'api', MARKER, 'timeout', 'db-1', '200');
const regexp = fc.constantFrom('.*', 'a|b', '^G', '(?i)conn', '\\d+', '', MARKER);

const leaf: fc.Arbitrary<string> = fc.oneof(
  word,
  value.map((v) => quote(v)),
  word.map((w) => `${w}*`),
  fc.tuple(fieldName, value).map(([f, v]) => `${quote(f)}:${quote(v)}`),
  fc.tuple(fieldName, value).map(([f, v]) => `${quote(f)}:=${quote(v)}`),
  fc.tuple(fieldName, value).map(([f, v]) => `${quote(f)}:${quote(v)}*`),
  fc.tuple(fieldName, regexp).map(([f, r]) => `${quote(f)}:~${quote(r)}`),
  fc.tuple(fieldName, fc.constantFrom('>', '>=', '<', '<='), fc.integer({ min: -10, max: 3000 }))
    .map(([f, op, n]) => `${quote(f)}:${op}${n}`),
  fieldName.map((f) => `${quote(f)}:*`),
  fieldName.map((f) => `${quote(f)}:""`),
  fc.tuple(fieldName, fc.array(value, { maxLength: 3 })).map(([f, vs]) => `${quote(f)}:in(${vs.map(quote).join(', ')})`),
  fc.constantFrom('_time:5m', '_time:1d', '_time:[2024-05-01T12:00:01Z, 2024-05-01T13:00:00Z)', '_time:2024-05-01', '_time:*'),
  fc.tuple(fc.constantFrom('app', 'env', 'service', 'tenant_id'), fc.constantFrom('=', '!=', '=~', '!~'),
    fc.constantFrom('api', 'prod', 'A', 'B', '.*', '', MARKER)).map(([l, op, v]) => `_stream:{${l}${op}${quote(v)}}`),
  fc.constant('*'),
);

const { filter } = fc.letrec<{ filter: string }>((tie) => ({
  filter: fc.oneof({ depthSize: 'small' },
    leaf,
    fc.tuple(tie('filter'), tie('filter')).map(([a, b]) => `${a} ${b}`),
    fc.tuple(tie('filter'), tie('filter')).map(([a, b]) => `${a} OR ${b}`),
    fc.tuple(tie('filter'), tie('filter')).map(([a, b]) => `(${a} OR ${b}) AND ${a}`),
    tie('filter').map((a) => `NOT (${a})`),
    tie('filter').map((a) => `-(${a})`)),
}));

/** Stats groups are unique by the field they name (`level` is `severity`, `""` is `_msg`): the parser refuses twins. */
const canonical = (f: string): string => canonicalField(f);

const pipe: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 0, max: 5 }).map((n) => `limit ${n}`),
  fc.integer({ min: 0, max: 5 }).map((n) => `offset ${n}`),
  fc.tuple(pipeField, fc.boolean()).map(([f, desc]) => `sort by (${quote(f)}${desc ? ' desc' : ''})`),
  fc.array(pipeField, { minLength: 1, maxLength: 3 }).map((fs) => `fields ${fs.map(quote).join(', ')}`),
  fc.array(pipeField, { minLength: 1, maxLength: 2 }).map((fs) => `delete ${fs.map(quote).join(', ')}`),
  fc.tuple(fc.uniqueArray(pipeField, { maxLength: 2, selector: canonical }), fieldName).map(([by, f]) =>
    `stats by (${by.map(quote).join(', ')}) count() n, count_uniq(${quote(f)}) u, sum(${quote(f)}) s, ` +
    `min(${quote(f)}) lo, max(${quote(f)}) hi`),
  fc.constant('stats by (_time:1h) count() n'),
);

/** A random query: a filter and up to three pipes. */
export const queryArbitrary: fc.Arbitrary<string> = fc.tuple(filter, fc.array(pipe, { maxLength: 3 }))
  .map(([f, pipes]) => [f, ...pipes].join(' | '));
