// The optional model's client and the faithful-rewording rule, against a local OpenAI-compatible fixture server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startLlmFixtureServer, type LlmFixtureServer } from '../../../test/support/llm-fixture-server.js';
import { completionsUrl, OpenAiClient } from './openai-client.js';
import { faithful, rewordSummaries } from './reword.js';
import type { Hypothesis } from '../model.js';

const hyp = (summary: string, value: string): Hypothesis => ({
  kind: 'field_value', field: 'version', value, score: 10, incident_share: 0.83, baseline_share: 0, count: 830, summary,
  query: `version:="${value}"`,
});

void describe('LLM client', () => {
  let server: LlmFixtureServer;
  const logs: string[] = [];
  before(async () => {
    server = await startLlmFixtureServer();
  });
  after(() => server.close());
  const client = (): OpenAiClient => new OpenAiClient({ url: server.url, model: 'test-model', apiKey: 'sk-test', timeoutMs: 2000, log: (l) => logs.push(l) });

  it('takes a base URL or the full chat completions URL', () => {
    assert.equal(completionsUrl('http://h:1/v1'), 'http://h:1/v1/chat/completions');
    assert.equal(completionsUrl('http://h:1/v1/chat/completions/'), 'http://h:1/v1/chat/completions');
  });

  it('posts the model, the messages and the key, and returns the reply text', async () => {
    server.fixtures.push({ whenAsked: 'ping', reply: 'pong' });
    assert.equal(await client().complete([{ role: 'user', content: 'ping' }]), 'pong');
    const seen = server.requests[server.requests.length - 1];
    assert.ok(seen);
    assert.equal(seen.model, 'test-model');
    assert.equal(seen.authorization, 'Bearer sk-test');
  });

  it('a failing or unreachable model is null, never an exception', async () => {
    server.failWith = 500;
    assert.equal(await client().complete([{ role: 'user', content: 'ping' }]), null);
    server.failWith = null;
    const dead = new OpenAiClient({ url: 'http://127.0.0.1:9/v1', model: 'm', timeoutMs: 500, log: (l) => logs.push(l) });
    assert.equal(await dead.complete([{ role: 'user', content: 'ping' }]), null);
    assert.ok(logs.some((l) => l.includes('answered 500')));
  });

  it('takes a rewording only when it keeps every number and value of the grounded line', async () => {
    const h = hyp('version=2.4.1 is on 83% of the events (830) vs 0% before', '2.4.1');
    assert.ok(faithful(h, 'Version 2.4.1 appears on 83% of the events (830) and on 0% before.'));
    assert.ok(!faithful(h, 'Version 2.4.1 appears on most events.'), 'numbers dropped');
    assert.ok(!faithful(h, 'A bad deploy is on 83% (830), 0% before'), 'value dropped');
    assert.ok(!faithful(h, 'line one 2.4.1 83% 830 0%\nline two'), 'two lines');
    server.fixtures.push({
      whenAsked: 'Findings:',
      reply: '["The new release 2.4.1 carries 83% of the events (830), against 0% before.", "made up"]',
    });
    const second = hyp('customer_id=42 is on 40% of the events (400) vs 2% before', '42');
    const out = await rewordSummaries([h, second], client());
    assert.equal(out[0]?.summary, 'The new release 2.4.1 carries 83% of the events (830), against 0% before.');
    assert.equal(out[1]?.summary, second.summary, 'an unfaithful line keeps the grounded summary');
  });
});
