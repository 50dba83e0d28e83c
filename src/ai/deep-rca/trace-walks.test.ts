// The two walks over one trace on hand-built span trees (issue 10 item 3): where errors begin (propagation.ts) and
// which spans set the end-to-end latency (critical-path.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Span } from '../../model/span.js';
import { criticalPath, criticalSelfTimeMs, opKey } from './critical-path.js';
import { countOrigins, errorWalk } from './propagation.js';

const MS = 1_000_000n;

/** A span from `start` to `end` ms; id doubles as its name. */
function s(id: string, parent: string, service: string, start: number, end: number, error = false, traceId = 't1'): Span {
  return {
    traceId, spanId: id, parentSpanId: parent, name: id, kind: 2, startNs: BigInt(start) * MS, durationNs: BigInt(end - start) * MS,
    statusCode: error ? 2 : 0, statusMessage: '', service, attributes: {}, resource: {}, events: [], links: [],
  };
}

void test('the deepest failing span whose children are healthy is the origin; its failing ancestors propagate', () => {
  const walk = errorWalk([
    s('fe', '', 'frontend', 0, 100, true),
    s('api', 'fe', 'api', 5, 95, true),
    s('inv', 'api', 'inventory', 10, 50, true),
    s('db', 'inv', 'db', 12, 20),
    s('pay', 'api', 'payments', 55, 90),
  ]);
  assert.deepEqual(walk.origins.map((x) => x.service), ['inventory']);
  assert.deepEqual(walk.propagators.map((x) => x.service).sort(), ['api', 'frontend']);
});

const cases: [string, Span[], string[]][] = [
  ['two failing branches give two origins', [
    s('r', '', 'api', 0, 100, true), s('a', 'r', 'a', 1, 10, true), s('b', 'r', 'b', 20, 30, true)], ['a', 'b']],
  ['an error under a healthy parent (handled) is still an origin', [
    s('r', '', 'api', 0, 100), s('a', 'r', 'cache', 1, 10, true)], ['cache']],
  ['a failing leaf root is its own origin', [s('r', '', 'api', 0, 10, true)], ['api']],
  ['no error, no origin', [s('r', '', 'api', 0, 10), s('a', 'r', 'db', 1, 5)], []],
  ['a span whose parent is missing is walked as a root', [
    s('a', 'gone', 'checkout', 0, 10, true), s('b', 'a', 'payments', 1, 5, true)], ['payments']],
];
for (const [name, spans, origins] of cases) {
  void test(`error walk: ${name}`, () => {
    assert.deepEqual(errorWalk(spans).origins.map((x) => x.service).sort(), origins);
  });
}

void test('origins are counted once per trace, callers that only pass errors up separately', () => {
  const trace = (id: string, origin: string) => [
    s('fe', '', 'frontend', 0, 100, true, id), s('x', 'fe', origin, 10, 20, true, id), s('y', 'x', origin, 11, 19, true, id)];
  const counts = countOrigins([trace('t1', 'inventory'), trace('t2', 'inventory'), trace('t3', 'payments')]);
  assert.equal(counts.traces, 3);
  assert.deepEqual(counts.origins.get('inventory'), { traces: 2, examples: ['t1', 't2'] });
  assert.equal(counts.origins.get('payments')?.traces, 1);
  assert.equal(counts.propagators.get('frontend')?.traces, 3);
  assert.equal(counts.propagators.has('inventory'), false, 'a service with an origin span is not also counted as propagating');
});

void test('critical path: the last-finishing child, then what finished before it started, the rest self-time', () => {
  // root 0–100 calls a 10–40 and b 20–80 (parallel), and c 85–95; b calls d 30–70.
  const spans = [
    s('root', '', 'fe', 0, 100), s('a', 'root', 'svcA', 10, 40), s('b', 'root', 'svcB', 20, 80),
    s('c', 'root', 'svcC', 85, 95), s('d', 'b', 'db', 30, 70),
  ];
  const path = criticalPath(spans).map((x) => [x.span.spanId, Number(x.startNs / MS), Number(x.endNs / MS)]);
  assert.deepEqual(path, [
    ['root', 95, 100], ['c', 85, 95], ['root', 80, 85], ['b', 70, 80], ['d', 30, 70], ['b', 20, 30], ['root', 0, 20],
  ], 'a (10–40) overlaps b and ends after b starts, so it is off the path');
  const self = criticalSelfTimeMs(spans);
  assert.equal(self.get(opKey('fe', 'root')), 30);
  assert.equal(self.get(opKey('svcB', 'b')), 20);
  assert.equal(self.get(opKey('db', 'd')), 40);
  assert.equal(self.has(opKey('svcA', 'a')), false);
  assert.equal([...self.values()].reduce((x, y) => x + y, 0), 100, 'the path covers the whole trace');
});

void test('critical path: sequential children are all on it; a child overrunning its parent is clipped', () => {
  const seq = criticalSelfTimeMs([s('r', '', 'api', 0, 50), s('a', 'r', 'a', 5, 20), s('b', 'r', 'b', 25, 45)]);
  assert.deepEqual([...seq].sort(), [[opKey('a', 'a'), 15], [opKey('api', 'r'), 15], [opKey('b', 'b'), 20]]);
  // A call that ends exactly when the next begins was still waited for.
  const touching = criticalSelfTimeMs([s('r', '', 'api', 0, 50), s('a', 'r', 'a', 5, 20), s('b', 'r', 'b', 20, 45)]);
  assert.deepEqual([...touching].sort(), [[opKey('a', 'a'), 15], [opKey('api', 'r'), 10], [opKey('b', 'b'), 25]]);
  // Zero-length children, even at the same instant, end the walk.
  const instant = criticalSelfTimeMs([s('r', '', 'api', 0, 10), s('a', 'r', 'a', 5, 5), s('b', 'r', 'b', 5, 5)]);
  assert.deepEqual([...instant], [[opKey('api', 'r'), 10]]);
  // Clock skew: the child seems to end 5 ms after its parent; only its part inside the parent counts.
  const skew = criticalSelfTimeMs([s('r', '', 'api', 0, 50), s('a', 'r', 'db', 10, 55)]);
  assert.equal(skew.get(opKey('db', 'a')), 40);
  assert.equal(skew.get(opKey('api', 'r')), 10);
});

void test('critical path of an empty or cyclic trace ends', () => {
  assert.deepEqual(criticalPath([]), []);
  const cyclic = [s('a', 'b', 'x', 0, 10), s('b', 'a', 'y', 0, 10)];
  assert.deepEqual(criticalPath(cyclic), []);
});
