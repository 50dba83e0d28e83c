// A local OpenAI-compatible chat completions endpoint for tests (issue 10 item 6): it answers from fixtures, matched
// by a substring of the last user message, and records every request so a test can prove what was (or was not) asked.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LlmFixture {
  /** Answer when the last user message contains this text. */
  whenAsked: string;
  /** The assistant message's content. */
  reply: string;
}

export interface LlmRequestSeen {
  model: string;
  messages: { role: string; content: string }[];
  authorization: string | undefined;
}

export interface LlmFixtureServer {
  /** Base URL, e.g. http://127.0.0.1:1234/v1 */
  url: string;
  requests: LlmRequestSeen[];
  fixtures: LlmFixture[];
  /** Answer every request with this status instead (a failing model). */
  failWith: number | null;
  close(): Promise<void>;
}

export async function startLlmFixtureServer(fixtures: LlmFixture[] = []): Promise<LlmFixtureServer> {
  const state: LlmFixtureServer = { url: '', requests: [], fixtures, failWith: null, close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; messages: { role: string; content: string }[] };
      state.requests.push({ model: body.model, messages: body.messages, authorization: req.headers.authorization });
      if (state.failWith !== null) {
        res.writeHead(state.failWith, { 'Content-Type': 'application/json' }).end('{"error":{"message":"fixture failure"}}');
        return;
      }
      const asked = [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
      const hit = state.fixtures.find((f) => asked.includes(f.whenAsked));
      const content = hit ? hit.reply : 'I do not know.';
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({
        id: `chatcmpl-${state.requests.length}`, object: 'chat.completion', created: 0, model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${port}/v1`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
