// Negation, refusals and the optional model of `ai/query` (issue 10 items 2 and 6), over a store double that
// answers the schema reads from a small fixed schema (the full set runs on DuckDB in eval.test.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TelemetryStore, ValueHits } from '../../stores/telemetry/telemetry-store.js';
import type { LabelMatcher } from '../../model/series-source.js';
import type { ChatMessage, LlmClient } from '../llm/llm-client.js';
import { Evidence } from '../evidence.js';
import type { AiReadContext } from '../model.js';
import { answerQuestion, NlUnplaceable } from './nl-query.js';

const NOW = Date.UTC(2026, 10, 21, 12);
const FIELDS: Record<string, string[]> = {
  service: ['checkout', 'cart', 'payments'], severity: ['info', 'error', 'debug'], host: ['web-1', 'web-2'],
};
const hits = (vs: string[]): ValueHits[] => vs.map((value) => ({ value, hits: 10 }));

/** The reads schema linking makes, answered from FIELDS; searchLogs counts its calls (the model check runs one). */
function storeDouble(): TelemetryStore & { searches: number } {
  const s = {
    searches: 0,
    logFieldNames: () => Promise.resolve(hits(['_msg', '_time', ...Object.keys(FIELDS)])),
    logFacets: () => Promise.resolve(Object.entries(FIELDS).map(([field, vs]) => ({ field, values: hits(vs) }))),
    logFieldValues: (_t: string, _q: unknown, _r: unknown, field: string) => Promise.resolve(hits(FIELDS[field] ?? [])),
    logStreamFieldNames: () => Promise.resolve(hits(['service'])),
    logStreamFieldValues: () => Promise.resolve([]),
    spanDurations: () => Promise.resolve([]),
    searchLogs: () => {
      s.searches++;
      return Promise.resolve([]);
    },
    metrics: {
      labelValues: (_t: string, name: string, m: LabelMatcher[][]) =>
        Promise.resolve(name === '__name__' ? ['http_requests_total'] : name === 'service' && m.length > 0 ? ['checkout', 'cart'] : []),
      labelNames: () => Promise.resolve(['__name__', 'service']),
    },
  };
  return s as unknown as TelemetryStore & { searches: number };
}

function ctx(llm?: LlmClient): AiReadContext & { telemetry: { searches: number } } {
  return { telemetry: storeDouble(), tenantId: 't1', nowMs: NOW, evidence: new Evidence(), ...(llm ? { llm } : {}) };
}

const ask = async (question: string, c = ctx()): Promise<string> => (await answerQuestion({ question }, c)).query;

void describe('negation', () => {
  const CASES: [string, string][] = [
    ['errors not from cart', 'level:error -service:cart'],
    ['logs except payments', '-service:payments'],
    ['errors excluding debug', 'level:error -level:debug'],
    ['logs except cart, payments or checkout', '-service:cart -service:payments -service:checkout'],
    ['logs except cart from checkout', 'service:checkout -service:cart'],
    ['errors but not from web-1', 'level:error -host:web-1'],
    ['no debug logs from cart', 'service:cart -level:debug'],
    ['errors without a trace id', 'level:error -trace_id:*'],
    ['errors not containing timeout', 'level:error -"timeout"'],
    ['logs other than those from payments and cart', '-service:payments -service:cart'],
  ];
  for (const [question, query] of CASES) {
    void test(`'${question}' → ${query}`, async () => assert.equal(await ask(question), query));
  }
});

void describe('refusals', () => {
  void test('words it cannot place are named, in the order asked', async () => {
    await assert.rejects(ask('errors from checkout with purple bananas'), (e: unknown) => {
      assert.ok(e instanceof NlUnplaceable);
      assert.deepEqual(e.words, ['purple', 'bananas']);
      return true;
    });
  });

  void test('an empty question is refused', async () => {
    await assert.rejects(ask('   '), NlUnplaceable);
  });

  void test('a word that is a value in no field is not guessed into a phrase', async () => {
    await assert.rejects(ask('timeout errors'), (e: unknown) => e instanceof NlUnplaceable && e.words.join() === 'timeout');
  });
});

void describe('the optional model', () => {
  const model = (reply: string): LlmClient & { asked: ChatMessage[][] } => {
    const asked: ChatMessage[][] = [];
    return { asked, complete: (m) => { asked.push(m); return Promise.resolve(reply); } };
  };

  void test('is not asked when the grammar places every word', async () => {
    const llm = model('{"signal":"logs","query":"*"}');
    assert.equal(await ask('errors from checkout', ctx(llm)), 'service:checkout level:error');
    assert.equal(llm.asked.length, 0);
  });

  void test('is asked with the tenant\'s fields and values when the grammar cannot place a word, and its parsing, running query is kept', async () => {
    const llm = model('Here: {"signal":"logs","query":"service:checkout \\"timed out\\"","explanation":"timeouts in checkout."}');
    const c = ctx(llm);
    const a = await answerQuestion({ question: 'checkout timeouts' }, c);
    assert.equal(a.query, 'service:checkout "timed out"');
    assert.match(a.explanation, /model/);
    assert.equal(c.telemetry.searches, 1, 'the model\'s query was run once');
    const system = llm.asked[0]?.[0]?.content ?? '';
    assert.match(system, /checkout, cart, payments/);
    assert.match(system, /http_requests_total/);
    assert.ok(c.evidence.queries.some((q) => q.query === 'service:checkout "timed out"'));
  });

  void test('an answer that does not parse is refused as before', async () => {
    for (const reply of ['{"signal":"logs","query":"service:(checkout"}', '{"signal":"metrics","query":"sum(rate("}', 'no json', 'null']) {
      await assert.rejects(ask('checkout timeouts', ctx(model(reply))), (e: unknown) => e instanceof NlUnplaceable && e.words.join() === 'timeouts');
    }
  });
});
