// The baseline of the ingest benchmark: a bare node:http server that reads each body and parses it
// line by line with JSON.parse, and nothing else (no auth, no WAL, no store).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startBareServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let accepted = 0;
      let start = 0;
      while (start < text.length) {
        let end = text.indexOf('\n', start);
        if (end < 0) end = text.length;
        if (end > start) {
          JSON.parse(text.slice(start, end));
          accepted++;
        }
        start = end + 1;
      }
      const reply = JSON.stringify({ status: 'ok', accepted });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': reply.length });
      res.end(reply);
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1/ingest`,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
