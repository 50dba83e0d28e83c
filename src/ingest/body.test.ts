import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync, deflateSync, brotliCompressSync } from 'node:zlib';
import { compress as snappyCompress } from 'snappyjs';
import { ServiceError, errors } from '../errors.js';
import {
  BodyTimeoutError, BodyTooLargeError, ClientAbortedError, MAX_COUNTED_BYTES, MIB, crc32c, decodeBody, maskedCrc32c, readBody,
} from './body.js';

const CAP = 2 * MIB;
const limits = (max = CAP) => ({ maxDecodedBytes: max, tooLarge: (text: string) => errors.payloadTooLarge(text, max) });
const text = (n: number): Buffer => Buffer.from('{"_msg":"hello world","level":"info"}\n'.repeat(Math.ceil(n / 38)).slice(0, n));

async function refused(p: Promise<unknown>, status: number, detail: RegExp | string): Promise<ServiceError> {
  const e = await p.then(() => assert.fail('expected a refusal'), (x: unknown) => x);
  assert.ok(e instanceof ServiceError, `not a ServiceError: ${String(e)}`);
  assert.equal(e.status, status, e.detail);
  if (typeof detail === 'string') assert.equal(e.detail, detail);
  else assert.match(e.detail, detail);
  return e;
}

const ZSTD = ['/usr/bin/zstd', '/usr/local/bin/zstd'].find((p) => existsSync(p));
/** zstd from stdin writes no content size; from a file it does. */
function zstd(data: Buffer, opts: { withSize?: boolean; level?: number } = {}): Buffer {
  const args = ['-q', '-c', `-${opts.level ?? 3}`];
  if (!ZSTD) throw new Error('no zstd binary');
  if (!opts.withSize) return execFileSync(ZSTD, args, { input: data, maxBuffer: 256 * MIB });
  const dir = mkdtempSync(join(tmpdir(), 'body-test-'));
  try {
    writeFileSync(join(dir, 'in'), data);
    return execFileSync(ZSTD, [...args, join(dir, 'in')], { maxBuffer: 256 * MIB });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A snappy framing-format encoder (google/snappy framing_format.txt), built only for these tests. */
function snappyFramed(data: Buffer, extra: { padding?: boolean; uncompressedChunks?: boolean } = {}): Buffer {
  const chunk = (type: number, body: Buffer): Buffer => {
    const head = Buffer.alloc(4);
    head.writeUInt8(type, 0);
    head.writeUIntLE(body.length, 1, 3);
    return Buffer.concat([head, body]);
  };
  const parts = [chunk(0xff, Buffer.from('sNaPpY'))];
  if (extra.padding) parts.push(chunk(0xfe, Buffer.alloc(7)), chunk(0x80, Buffer.from('skip me')));
  for (let i = 0; i < data.length; i += 65_536) {
    const piece = data.subarray(i, i + 65_536);
    const crc = Buffer.alloc(4);
    crc.writeUInt32LE(maskedCrc32c(piece));
    const compressed = Buffer.from(snappyCompress(piece));
    parts.push(extra.uncompressedChunks ? chunk(0x01, Buffer.concat([crc, piece])) : chunk(0x00, Buffer.concat([crc, compressed])));
  }
  return Buffer.concat(parts);
}

/** A zstd frame of RLE blocks written by hand: 4 bytes per 128 KiB of output, so 2 MB makes 64 GiB. */
function zstdRleBomb(blocks: number, declaredSize?: bigint): Buffer {
  const header = declaredSize === undefined
    ? Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (17 - 10) << 3]) // no content size, 128 KiB window
    : Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xc0, (17 - 10) << 3]), u64(declaredSize)]);
  const body = Buffer.alloc(blocks * 4);
  for (let i = 0; i < blocks; i++) body.writeUIntLE((i === blocks - 1 ? 1 : 0) | (1 << 1) | (131_072 << 3), i * 4, 3);
  return Buffer.concat([header, body]);
}
const u64 = (n: bigint): Buffer => { const b = Buffer.alloc(8); b.writeBigUInt64LE(n); return b; };

// --- Content-Encoding: which codings, by name ------------------------------------------------------

void test('no Content-Encoding, identity or an empty header gives the body back unchanged', async () => {
  const raw = text(1000);
  for (const enc of [undefined, '', 'identity', ' Identity ']) assert.equal(await decodeBody(raw, enc, limits()), raw);
});

void test('deflate, br and unknown codings are refused with a 400 naming the coding', async () => {
  const cases: [string, Buffer][] = [['deflate', deflateSync(text(100))], ['br', brotliCompressSync(text(100))], ['lz4', text(100)], ['Compress', text(100)]];
  for (const [enc, body] of cases) {
    const e = await refused(decodeBody(body, enc, limits()), 400, new RegExp(`Content-Encoding: ${enc}\\b`));
    assert.equal(e.slug, 'unsupported_encoding');
  }
});

void test('a list of more than one coding is a 400', async () => {
  await refused(decodeBody(gzipSync(text(10)), 'gzip, zstd', limits()), 400, /gzip, zstd/);
  await refused(decodeBody(gzipSync(text(10)), 'gzip,gzip', limits()), 400, /gzip, gzip/);
});

void test('the coding name is matched case-insensitively and trimmed', async () => {
  const raw = text(5000);
  for (const enc of ['gzip', ' GZIP ', 'x-gzip', 'X-Gzip']) assert.deepEqual(await decodeBody(gzipSync(raw), enc, limits()), raw);
});

// --- gzip ------------------------------------------------------------------------------------------

void test('gzip round-trips, including a multi-member stream', async () => {
  const a = text(300_000), b = text(5);
  assert.deepEqual(await decodeBody(gzipSync(a), 'gzip', limits()), a);
  assert.deepEqual(await decodeBody(Buffer.concat([gzipSync(a), gzipSync(b)]), 'gzip', limits()), Buffer.concat([a, b]));
});

void test('corrupt or truncated gzip is a 400 corrupt_body', async () => {
  const good = gzipSync(text(10_000));
  for (const bad of [good.subarray(0, good.length - 10), Buffer.from('definitely not gzip'), Buffer.concat([good.subarray(0, 20), Buffer.alloc(50, 0xab)])]) {
    const e = await refused(decodeBody(bad, 'gzip', limits()), 400, /^Corrupt gzip stream: /);
    assert.equal(e.slug, 'corrupt_body');
  }
});

void test('gzip over the decoded cap is a 413 giving the exact decoded size and the limit', async () => {
  await refused(decodeBody(gzipSync(text(3_000_000)), 'gzip', limits()), 413,
    'Decompressed body is 3000000 bytes, over the limit of 2097152 bytes');
});

void test('a body of exactly the cap after decoding is accepted', async () => {
  assert.equal((await decodeBody(gzipSync(text(CAP)), 'gzip', limits())).length, CAP);
});

void test('past 64 MiB counting stops and the 413 says "more than 67108864"', async () => {
  const member = gzipSync(Buffer.alloc(40 * MIB), { level: 1 });
  await refused(decodeBody(Buffer.concat([member, member]), 'gzip', limits()), 413,
    `Decompressed body is more than ${MAX_COUNTED_BYTES} bytes, over the limit of 2097152 bytes`);
  // Exactly 64 MiB is still counted exactly.
  const exact = gzipSync(Buffer.alloc(MAX_COUNTED_BYTES), { level: 1 });
  await refused(decodeBody(exact, 'gzip', limits()), 413, /is 67108864 bytes/);
});

void test('a gzip bomb (2 MB inflating to about 2 GiB) is refused quickly', async () => {
  const member = gzipSync(Buffer.alloc(64 * MIB), { level: 9 });
  const bomb = Buffer.concat(Array.from({ length: Math.floor(CAP / member.length) }, () => member));
  assert.ok(bomb.length <= CAP && bomb.length > CAP / 2);
  const t0 = performance.now();
  await refused(decodeBody(bomb, 'gzip', limits()), 413, /more than 67108864/);
  assert.ok(performance.now() - t0 < 2000, `took ${performance.now() - t0} ms`);
});

// --- zstd ------------------------------------------------------------------------------------------

void test('zstd round-trips, with or without a declared content size, over several frames', { skip: !ZSTD }, async () => {
  const a = text(500_000), b = text(1234);
  assert.deepEqual(await decodeBody(zstd(a), 'zstd', limits()), a);
  assert.deepEqual(await decodeBody(zstd(a, { withSize: true }), 'zstd', limits()), a);
  assert.deepEqual(await decodeBody(Buffer.concat([zstd(a), zstd(b, { withSize: true })]), 'zstd', limits()), Buffer.concat([a, b]));
  const skippable = Buffer.concat([Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]), zstd(b)]);
  assert.deepEqual(await decodeBody(skippable, 'ZSTD', limits()), b);
});

void test('corrupt or truncated zstd is a 400 corrupt_body', { skip: !ZSTD }, async () => {
  const good = zstd(text(200_000));
  const frame = (fhd: number[], blockHeader: number, payload: number[]): Buffer =>
    Buffer.from([0x28, 0xb5, 0x2f, 0xfd, ...fhd, blockHeader & 0xff, (blockHeader >> 8) & 0xff, blockHeader >> 16, ...payload]);
  const rawBlock = (last: number, size: number): number => last | (0 << 1) | (size << 3);
  // Sanity: the hand-built frame decodes when it is well formed.
  assert.equal((await decodeBody(frame([0x20, 5], rawBlock(1, 5), [1, 2, 3, 4, 5]), 'zstd', limits())).length, 5);
  const cases: [string, Buffer][] = [
    ['truncated', good.subarray(0, good.length - 30)],
    ['not zstd', Buffer.from('not zstd at all')],
    ['trailing junk', Buffer.concat([good, Buffer.from('junk')])],
    ['reserved block type', frame([0x20, 5], 1 | (3 << 1) | (5 << 3), [1, 2, 3, 4, 5])],
    ['size other than declared', frame([0x20, 10], rawBlock(1, 5), [1, 2, 3, 4, 5])],
    ['bad compressed block', frame([0x20, 50], 1 | (2 << 1) | (6 << 3), [0xff, 0xff, 0xff, 0xff, 0xff, 0xff])],
  ];
  for (const [name, bad] of cases) {
    await refused(decodeBody(bad, 'zstd', limits()), 400, /^Corrupt zstd stream: /).catch((e: unknown) => {
      throw new Error(`${name}: ${String(e)}`);
    });
  }
});

void test('zstd over the decoded cap is a 413 with the exact size, declared or counted', { skip: !ZSTD }, async () => {
  const detail = 'Decompressed body is 3000000 bytes, over the limit of 2097152 bytes';
  await refused(decodeBody(zstd(text(3_000_000), { withSize: true }), 'zstd', limits()), 413, detail);
  await refused(decodeBody(zstd(text(3_000_000)), 'zstd', limits()), 413, detail);
});

void test('a zstd bomb is refused quickly, whether its size is declared or must be counted', async () => {
  for (const bomb of [zstdRleBomb(500_000), zstdRleBomb(500_000, 500_000n * 131_072n)]) {
    const t0 = performance.now();
    await refused(decodeBody(bomb, 'zstd', limits()), 413, /more than 67108864/);
    assert.ok(performance.now() - t0 < 2000, `took ${performance.now() - t0} ms`);
  }
});

void test('a zstd window over the supported bound is refused before anything is allocated', async () => {
  const huge = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (30 - 10) << 3, 0x01, 0x00, 0x00]); // 1 GiB window
  await refused(decodeBody(huge, 'zstd', limits()), 400, /window of 1073741824 bytes/);
});

// --- snappy ----------------------------------------------------------------------------------------

void test('CRC-32C matches the published check value', () => {
  assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
});

void test('snappy block format round-trips', async () => {
  for (const raw of [text(1), text(70_000), Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) & 0xff))]) {
    assert.deepEqual(await decodeBody(Buffer.from(snappyCompress(raw)), 'snappy', limits()), raw);
  }
  // Literals and copies of every length around the decoder's short-copy loop, overlapping runs included.
  let seed = 7;
  const rnd = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let round = 0; round < 40; round++) {
    const out: number[] = [];
    while (out.length < 20_000) {
      const kind = rnd(3);
      const len = 1 + rnd(kind === 0 ? 80 : 70);
      if (kind === 0 || out.length === 0) for (let i = 0; i < len; i++) out.push(rnd(256));
      else {
        const offset = 1 + rnd(Math.min(out.length, kind === 1 ? 8 : 3000));
        for (let i = 0; i < len; i++) out.push(out[out.length - offset] ?? 0);
      }
    }
    const raw = Buffer.from(out);
    assert.deepEqual(await decodeBody(Buffer.from(snappyCompress(raw)), 'snappy', limits()), raw, `round ${round}`);
  }
});

void test('snappy framing format is sniffed and de-framed, across chunks, padding and skippable chunks', async () => {
  const raw = text(300_000);
  assert.deepEqual(await decodeBody(snappyFramed(raw), 'snappy', limits()), raw);
  assert.deepEqual(await decodeBody(snappyFramed(raw, { padding: true, uncompressedChunks: true }), 'x-snappy-framed', limits()), raw);
});

void test('corrupt snappy is a 400 corrupt_body, in either format', async () => {
  const block = Buffer.from(snappyCompress(text(10_000)));
  const framed = snappyFramed(text(10_000));
  const badCrc = Buffer.from(framed);
  badCrc[14] = (badCrc[14] ?? 0) ^ 1; // first byte of the first data chunk's CRC
  const reserved = Buffer.concat([framed.subarray(0, 10), Buffer.from([0x02, 1, 0, 0, 0])]);
  for (const bad of [block.subarray(0, block.length - 5), Buffer.concat([block, Buffer.from([0x00])]), Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    framed.subarray(0, framed.length - 3), badCrc, reserved]) {
    await refused(decodeBody(bad, 'snappy', limits()), 400, /^Corrupt snappy stream: /);
  }
});

void test('snappy over the decoded cap is a 413 with the exact size (declared up front for a block)', async () => {
  const detail = 'Decompressed body is 3000000 bytes, over the limit of 2097152 bytes';
  await refused(decodeBody(Buffer.from(snappyCompress(text(3_000_000))), 'snappy', limits()), 413, detail);
  await refused(decodeBody(snappyFramed(text(3_000_000)), 'snappy', limits()), 413, detail);
  // A block declaring 100 MiB is never decoded: its header alone decides.
  const liar = Buffer.concat([Buffer.from([0x80, 0x80, 0x80, 0x32]), Buffer.alloc(10)]);
  await refused(decodeBody(liar, 'snappy', limits()), 413, /more than 67108864/);
});

void test('identity bodies are checked against the decoded cap too', async () => {
  await refused(decodeBody(text(CAP + 1), undefined, limits()), 413, 'Decompressed body is 2097153 bytes, over the limit of 2097152 bytes');
});

void test('an empty body decodes to an empty body under any accepted coding', async () => {
  for (const enc of ['gzip', 'zstd', 'snappy', undefined]) assert.equal((await decodeBody(Buffer.alloc(0), enc, limits())).length, 0);
});

// --- readBody --------------------------------------------------------------------------------------

/** A server whose handler sees the request; `fn` gets its port. */
async function withServer(handler: (req: IncomingMessage) => Promise<number>, fn: (port: number) => Promise<void>): Promise<void> {
  const server = createServer((req, res) => {
    void handler(req).then((status) => {
      res.writeHead(status, { Connection: 'close' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await fn((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Sends `chunks` chunked (no Content-Length), `gapMs` apart; `end: false` leaves the body open. */
function send(port: number, chunks: Buffer[], opts: { gapMs?: number; end?: boolean; abortAfter?: boolean } = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method: 'POST', headers: { 'Transfer-Encoding': 'chunked' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (e) => { if (opts.abortAfter) resolve(-1); else reject(e); });
    void (async () => {
      for (const c of chunks) {
        if (req.destroyed) return;
        req.write(c);
        await new Promise((r) => setTimeout(r, opts.gapMs ?? 1));
      }
      if (opts.abortAfter) req.destroy();
      else if (opts.end !== false) req.end();
    })();
  });
}

void test('readBody collects a chunked body as received', async () => {
  let got: Buffer | undefined;
  await withServer(async (req) => { got = await readBody(req, 1000); return 200; }, async (port) => {
    assert.equal(await send(port, [Buffer.from('hello '), Buffer.from('chunked '), Buffer.from('world')]), 200);
  });
  assert.equal(got?.toString(), 'hello chunked world');
});

void test('readBody refuses a chunked body as soon as it passes the cap, before the client finishes', async () => {
  let error: unknown;
  await withServer(async (req) => {
    error = await readBody(req, 1000).catch((e: unknown) => e);
    return 413;
  }, async (port) => {
    // Ten 400-byte chunks and no end: only an early refusal lets the reply come back.
    assert.equal(await send(port, Array.from({ length: 10 }, () => Buffer.alloc(400, 0x61)), { gapMs: 20, end: false }), 413);
  });
  assert.ok(error instanceof BodyTooLargeError);
  assert.equal(error.status, 413);
  assert.equal(error.limitBytes, 1000);
});

void test('readBody gives up on a client that stops sending, after the idle timeout', async () => {
  let error: unknown;
  await withServer(async (req) => {
    const t0 = performance.now();
    error = await readBody(req, 1000, { idleTimeoutMs: 100 }).catch((e: unknown) => e);
    assert.ok(performance.now() - t0 < 1000);
    return 408;
  }, async (port) => {
    assert.equal(await send(port, [Buffer.from('a little')], { end: false }), 408);
  });
  assert.ok(error instanceof BodyTimeoutError);
  assert.equal(error.status, 408);
});

void test('readBody rejects when the client aborts mid-body', async () => {
  let error: unknown;
  let done!: () => void;
  const handled = new Promise<void>((r) => { done = r; });
  await withServer(async (req) => {
    error = await readBody(req, 100_000).catch((e: unknown) => e);
    done();
    return 400;
  }, async (port) => {
    await send(port, [Buffer.from('part one'), Buffer.from('part two')], { abortAfter: true, gapMs: 20 });
    await handled;
  });
  assert.ok(error instanceof ClientAbortedError);
});
