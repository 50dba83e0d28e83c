// A webhook receiver for notification tests: node:http on 127.0.0.1, port 0. It records every request (path,
// headers, JSON body) and answers with what `respond` says (200 by default); `hold` keeps a request unanswered
// (a receiver that is slow while the sender dies).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  at: number;
}

export type Answer = number | 'hold';

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** The answer for the n-th request (0-based); default 200. */
  respond: (n: number, req: Received) => Answer;
  /** Resolves once at least `count` requests have arrived (rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const held: http.ServerResponse[] = [];
  const waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      const r: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: Date.now() };
      const n = received.length;
      received.push(r);
      for (const w of waiters.splice(0)) w();
      const answer = receiver.respond(n, r);
      if (answer === 'hold') {
        held.push(res);
        return;
      }
      res.writeHead(answer, { 'Content-Type': 'text/plain' });
      res.end(answer >= 400 ? `status ${answer}` : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}`,
    received,
    respond: () => 200,
    async waitFor(count, ms = 20_000) {
      const end = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > end) throw new Error(`receiver got ${received.length} of ${count} requests in ${ms} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return received;
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
