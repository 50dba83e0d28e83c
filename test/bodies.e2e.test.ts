// Request bodies over HTTP (spec: Errors 400/413, Limits "Body caps", "Content-Encoding on ingest bodies";
// DESIGN §6 "Units", "413 on logs/traces", "Order of checks"). One service with the default 2 MiB cap and one
// started with SIGHTLINE_MAX_BODY_SIZE_MB=1.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { Readable } from 'node:stream';
import { createGzip, constants as zlibConstants } from 'node:zlib';
import { promisify } from 'node:util';
import { newAccount, startService, type Reply, type RunningService, type TestAccount } from './support/service.js';
import {
  entries, gzip, ingest, Later, ndjson, newKey, obj, query, raw, show, snappy, snappyFramed, uid, usageBytes, waitForRows, zstd, type RawReply,
} from './support/load.js';

const MIB = 1024 * 1024;
const CAP = 2 * MIB;
const run = promisify(execFile);

const started = new Later(() => startService());
// The 1 MiB service starts once the first one is up, while the first one's tests run.
const startedSmall = new Later(async () => {
  await started.get().catch(() => undefined);
  return startService({ env: { SIGHTLINE_MAX_BODY_SIZE_MB: '1' } });
});
let svc: RunningService;
let small: RunningService;
let A: TestAccount;

before(async () => {
  svc = await started.get();
  A = await newAccount(svc, { tier: 'custom' });
});
after(() => Promise.all([started.stop(), startedSmall.stop()]));

/** Valid NDJSON of exactly `bytes` bytes, every entry tagged `tag`. */
function ndjsonOfSize(bytes: number, tag: string): Buffer {
  const line = (pad: number): string => JSON.stringify({ _msg: `${tag} ${'x'.repeat(pad)}`, tag }) + '\n';
  const base = line(0).length;
  const full = line(1000 - base);
  const lines: string[] = [];
  let size = 0;
  while (bytes - size >= 2 * full.length) {
    lines.push(full);
    size += full.length;
  }
  const last = line(bytes - size - base);
  assert.ok(bytes - size - base >= 0, 'size too small for one line');
  lines.push(last);
  const out = Buffer.from(lines.join(''));
  assert.equal(out.length, bytes);
  return out;
}

function assertPlainTooLarge(r: Reply, what: string): void {
  assert.equal(r.status, 413, `${what}: ${show(r)}`);
  assert.equal(r.json, undefined, `${what}: an over-cap body as received is cut off with plain text, not JSON: ${r.text.slice(0, 200)}`);
  assert.match(String(r.headers['content-type']), /^text\/plain/, `${what}: content-type`);
}

/**
 * A plain 413 for an over-cap upload. The service lingers (reads and drops the rest of the upload) before it
 * closes, but a client descheduled on a loaded machine can still see a reset now and then, so a reset without
 * a reply is retried twice. Every attempt that gets a reply must get the plain 413.
 */
async function expectPlainTooLarge(send: () => Promise<RawReply>, what: string): Promise<void> {
  let r = await send();
  for (let i = 0; i < 2 && r.status === 0; i++) r = await send();
  assertPlainTooLarge(r, `${what}${r.error === undefined ? '' : ` (${r.error})`}`);
}

function assertJsonError(r: Reply, status: number, slug: string | null, what: string, detail?: RegExp): Record<string, unknown> {
  assert.equal(r.status, status, `${what}: ${show(r)}`);
  const body = obj(r);
  assert.equal(typeof body.detail, 'string', `${what}: JSON with detail expected: ${show(r)}`);
  if (slug !== null) assert.equal(body.error, slug, `${what}: ${show(r)}`);
  if (detail) assert.match(String(body.detail), detail, `${what}: ${show(r)}`);
  return body;
}

const ingestRaw = (base: string, key: string | null, body: Buffer | string, headers: Record<string, string> = {}, chunkBytes?: number) =>
  raw(base + '/api/v1/ingest', {
    method: 'POST', body,
    headers: { 'Content-Type': 'application/x-ndjson', ...(key === null ? {} : { 'X-API-Key': key }), ...headers },
    ...(chunkBytes === undefined ? {} : { chunkBytes }),
  });

async function stillAnswers(s: RunningService, key: string, what: string): Promise<void> {
  const r = await ingest(s.ingest, key, JSON.stringify(entries(1, uid('alive'))));
  assert.equal(r.status, 200, `${what}: the service must still answer: ${show(r)}`);
}

/** 1 GiB of zeros streamed through gzip (RLE strategy: ~1 MB out, fast); never held whole in memory. */
async function gzipBomb(): Promise<Buffer> {
  const zeros = Buffer.alloc(MIB);
  let sent = 0;
  const source = new Readable({
    read() {
      this.push(sent++ < 1024 ? zeros : null);
    },
  });
  const chunks: Buffer[] = [];
  for await (const c of source.pipe(createGzip({ level: 9, strategy: zlibConstants.Z_RLE }))) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('DESIGN §6 "413 on logs/traces": the cap as received (plain text) and after decompression (JSON)', () => {
  test('a body of exactly the cap (2 MiB = 2,097,152 bytes) is accepted', async () => {
    const r = await ingestRaw(svc.ingest, A.key, ndjsonOfSize(CAP, uid('exact')));
    assert.equal(r.status, 200, show(r));
    assert.equal(obj(r).status, 'ok');
  });

  test('one byte over the cap, announced by Content-Length, is cut off with a plain-text 413', async () => {
    const body = ndjsonOfSize(CAP + 1, uid('over'));
    await expectPlainTooLarge(() => ingestRaw(svc.ingest, A.key, body), 'cap + 1 byte');
    await stillAnswers(svc, A.key, 'after a plain 413');
  });

  test('a chunked upload without Content-Length is cut off with a plain-text 413 once it passes the cap (3 MB)', async () => {
    const body = ndjsonOfSize(3 * 1000 * 1000, uid('chunked'));
    const t0 = Date.now();
    await expectPlainTooLarge(() => ingestRaw(svc.ingest, A.key, body, {}, 64 * 1024), 'chunked 3 MB');
    assert.ok(Date.now() - t0 < 20_000, `took ${Date.now() - t0} ms`);
    await stillAnswers(svc, A.key, 'after a chunked 413');
  });

  test('a chunked upload under the cap is accepted', async () => {
    const tag = uid('chunkok');
    const r = await ingestRaw(svc.ingest, A.key, ndjson(entries(200, tag)), {}, 1000);
    assert.equal(r.status, 200, show(r));
    assert.equal(obj(r).accepted, 200);
  });

  test('a client that sends its whole over-cap body before reading (Python http.client style) still gets the plain 413', async () => {
    const r = await writeAllThenRead(svc.ingest, A.key, 64 * MIB);
    assert.equal(r.error, undefined, `the upload was reset before the client could read the 413: ${r.error ?? ''}`);
    assert.match(r.head, /^HTTP\/1\.1 413 /, r.head);
  });

  const codecs: [string, (b: Buffer) => Buffer][] = [['gzip', gzip], ['zstd', (b) => zstd(b)], ['snappy', snappy]];
  for (const [coding, encode] of codecs) {
    test(`${coding}: over the cap after decompression is JSON 413 payload_too_large with both sizes in bytes`, async () => {
      const plain = ndjsonOfSize(3 * MIB + 12345, uid(coding));
      const body = encode(plain);
      assert.ok(body.length < CAP, `the ${coding} body itself (${body.length} bytes) must be under the cap`);
      const r = await ingestRaw(svc.ingest, A.key, body, { 'Content-Encoding': coding });
      const detail = String(assertJsonError(r, 413, 'payload_too_large', coding).detail);
      assert.ok(detail.includes(String(plain.length)), `${coding}: detail must carry the decompressed size ${plain.length}: "${detail}"`);
      assert.ok(detail.includes(String(CAP)), `${coding}: detail must carry the limit ${CAP}: "${detail}"`);
    });

    test(`${coding}: decompressing to exactly the cap is accepted`, async () => {
      const r = await ingestRaw(svc.ingest, A.key, encode(ndjsonOfSize(CAP, uid(coding))), { 'Content-Encoding': coding });
      assert.equal(r.status, 200, show(r));
    });
  }

  test('a gzip bomb (1 GiB of zeros in ~1 MB) is refused with 413 quickly, and the service still answers', async () => {
    const bomb = await gzipBomb();
    assert.ok(bomb.length < CAP, `bomb is ${bomb.length} bytes`);
    const t0 = Date.now();
    const r = await ingestRaw(svc.ingest, A.key, bomb, { 'Content-Encoding': 'gzip' });
    const took = Date.now() - t0;
    assertJsonError(r, 413, 'payload_too_large', 'gzip bomb', /more than 67108864/);
    assert.ok(took < 5000, `the bomb took ${took} ms to refuse (counting must stop at 64 MiB)`);
    await stillAnswers(svc, A.key, 'after a gzip bomb');
  });

  test('a zstd bomb (256 MiB of zeros) is refused with 413 quickly', async () => {
    const { stdout } = await run('sh', ['-c', 'head -c 268435456 /dev/zero | zstd -q -c -3'], { encoding: 'buffer', maxBuffer: 64 * MIB });
    const t0 = Date.now();
    const r = await ingestRaw(svc.ingest, A.key, stdout, { 'Content-Encoding': 'zstd' });
    assertJsonError(r, 413, 'payload_too_large', 'zstd bomb', /more than 67108864|268435456/);
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    await stillAnswers(svc, A.key, 'after a zstd bomb');
  });
});

describe('Content-Encoding: accepted codings, refused codings by name, corrupt streams', () => {
  test('gzip, zstd and snappy bodies are accepted and stored', async () => {
    for (const [coding, encode] of [['gzip', gzip], ['zstd', (b: Buffer) => zstd(b)], ['snappy', snappy]] as const) {
      const tag = uid(coding);
      const r = await ingestRaw(svc.ingest, A.key, encode(Buffer.from(ndjson(entries(5, tag)))), { 'Content-Encoding': coding });
      assert.equal(r.status, 200, `${coding}: ${show(r)}`);
      assert.equal(obj(r).accepted, 5);
      const back = await waitForRows(svc, A.tenantId, A.key, `tag:=${tag}`, 5);
      assert.equal(back.rows.length, 5, `${coding}: read back ${back.rows.length} of 5`);
    }
  });

  test('snappy in the framing format (stream identifier, checksummed chunks) is accepted too; a bad checksum is 400', async () => {
    const tag = uid('framed');
    const plain = Buffer.from(ndjson(entries(1500, tag)));
    assert.ok(plain.length > 65_536, 'more than one chunk');
    const r = await ingestRaw(svc.ingest, A.key, snappyFramed(plain), { 'Content-Encoding': 'snappy' });
    assert.equal(r.status, 200, show(r));
    assert.equal(obj(r).accepted, 1500);
    const broken = snappyFramed(plain);
    broken.writeUInt32LE((broken.readUInt32LE(14) ^ 1) >>> 0, 14); // the first chunk's checksum
    assertJsonError(await ingestRaw(svc.ingest, A.key, broken, { 'Content-Encoding': 'snappy' }), 400, null, 'bad CRC', /snappy/i);
  });

  test('content-coding names are case-insensitive (GZIP), and identity is no coding', async () => {
    const plain = ndjson(entries(2, uid('case')));
    assert.equal((await ingestRaw(svc.ingest, A.key, gzip(plain), { 'Content-Encoding': 'GZIP' })).status, 200);
    assert.equal((await ingestRaw(svc.ingest, A.key, plain, { 'Content-Encoding': 'identity' })).status, 200);
  });

  for (const coding of ['deflate', 'br', 'compress', 'x-custom']) {
    test(`Content-Encoding: ${coding} is 400 naming the coding`, async () => {
      const r = await ingestRaw(svc.ingest, A.key, ndjson(entries(1, uid())), { 'Content-Encoding': coding });
      assertJsonError(r, 400, null, coding, new RegExp(coding));
      assert.equal(typeof obj(r).error, 'string', 'logs errors carry an error slug');
    });
  }

  test('a stack of codings (gzip, br) is 400', async () => {
    const r = await ingestRaw(svc.ingest, A.key, gzip(ndjson(entries(1, uid()))), { 'Content-Encoding': 'gzip, br' });
    assertJsonError(r, 400, null, 'gzip, br');
  });

  const good = Buffer.from(ndjson(entries(300, 'corrupt-fixture')));
  const corrupt: { name: string; coding: string; body: () => Buffer }[] = [
    { name: 'gzip with its middle overwritten', coding: 'gzip', body: () => { const g = gzip(good); g.fill(0x41, 20, g.length - 8); return g; } },
    { name: 'gzip cut short', coding: 'gzip', body: () => gzip(good).subarray(0, 200) },
    { name: 'plain JSON labelled gzip', coding: 'gzip', body: () => good },
    { name: 'zstd with its blocks overwritten', coding: 'zstd', body: () => { const z = zstd(good); z.fill(0xff, 12, z.length); return z; } },
    { name: 'zstd cut short', coding: 'zstd', body: () => zstd(good).subarray(0, 40) },
    { name: 'plain JSON labelled zstd', coding: 'zstd', body: () => good },
    { name: 'snappy block cut short', coding: 'snappy', body: () => { const s = snappy(good); return s.subarray(0, Math.floor(s.length / 2)); } },
    { name: 'snappy block with garbage after the length header', coding: 'snappy', body: () => { const s = snappy(good); s.fill(0xfe, 4); return s; } },
  ];
  for (const c of corrupt) {
    test(`a corrupt stream is 400 naming the problem: ${c.name}`, async () => {
      const r = await ingestRaw(svc.ingest, A.key, c.body(), { 'Content-Encoding': c.coding });
      assertJsonError(r, 400, null, c.name, new RegExp(c.coding, 'i'));
      assert.equal(typeof obj(r).error, 'string');
    });
  }
});

describe('NDJSON and JSON bodies: tolerated framing, and a malformed body stores nothing', () => {
  test('NDJSON with a BOM, CRLF line ends, blank and whitespace lines and no final newline is accepted whole', async () => {
    const tag = uid('crlf');
    const lines = entries(4, tag).map((e) => JSON.stringify(e));
    const body = '\uFEFF' + [lines[0], '', lines[1], '   ', '\t', lines[2], '', lines[3]].join('\r\n');
    const r = await ingestRaw(svc.ingest, A.key, body);
    assert.equal(r.status, 200, show(r));
    assert.equal(obj(r).accepted, 4);
    const back = await waitForRows(svc, A.tenantId, A.key, `tag:=${tag}`, 4);
    assert.equal(back.rows.length, 4);
    for (const row of back.rows) assert.match(String(row._msg), new RegExp(`^${tag} entry \\d$`), 'no \\r or BOM left in the message');
  });

  test('a JSON array with a BOM and surrounding whitespace is accepted', async () => {
    const r = await ingestRaw(svc.ingest, A.key, '\uFEFF \r\n' + JSON.stringify(entries(3, uid('bomarr'))) + '\r\n', { 'Content-Type': 'application/json' });
    assert.equal(r.status, 200, show(r));
    assert.equal(obj(r).accepted, 3);
  });

  test('entries with odd but valid JSON (nulls, non-string _msg, duplicate keys, __proto__, 20,000 fields, 1,000 levels of nesting) are accepted, never 5xx', async () => {
    const deep = (n: number): string => `{"_msg":"deep ${n}","f":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`;
    const bodies: [string, string][] = [
      ['nulls and non-string messages', '[{"_msg":null,"service":null,"_time":null},{"_msg":1},{"_msg":true},{"_msg":[1,2]},{"_msg":{"a":1}}]'],
      ['duplicate keys', '{"_msg":"a","_msg":"b","x":1,"x":2}'],
      ['__proto__ and constructor keys', '{"_msg":"p","__proto__":{"x":1},"constructor":"c"}'],
      ['20,000 fields', JSON.stringify(Object.fromEntries([['_msg', 'many'], ...Array.from({ length: 20_000 }, (_, i) => [`f${i}`, i])]))],
      ['1,000 levels of nesting', deep(1000)],
      ['a 100,000-character key', JSON.stringify({ _msg: 'k', ['k'.repeat(100_000)]: 'v' })],
      ['lone surrogates and NUL', JSON.stringify([{ _msg: '\ud800 lone \u0000 nul', service: '\u202e' }])],
    ];
    for (const [what, body] of bodies) {
      const r = await ingestRaw(svc.ingest, A.key, body, { 'Content-Type': 'application/json' });
      assert.equal(r.status, 200, `${what}: ${show(r)}`);
    }
  });

  test('an entry nested 5,000 levels deep (30 KB) is refused with 400, not 500 — a 5xx makes shippers retry the batch forever', async () => {
    for (const [what, body] of [
      ['objects', `{"_msg":"deep","f":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`],
      ['arrays', `{"_msg":"deep","f":${'['.repeat(5000)}1${']'.repeat(5000)}}`],
    ] as const) {
      const r = await ingestRaw(svc.ingest, A.key, body, { 'Content-Type': 'application/json' });
      assert.ok(r.status < 500, `nested ${what}: ${show(r)}`);
    }
  });

  test('a malformed line, a non-object line or a non-object array element is 400 and nothing of that body is stored or metered', async () => {
    const M = await newAccount(svc, { tier: 'custom' });
    const lines = (tag: string): string[] => entries(6, tag).map((e) => JSON.stringify(e));
    const cases: { what: string; detail: RegExp; build: (tag: string) => { body: Buffer; headers?: Record<string, string> } }[] = [
      { what: 'malformed NDJSON on line 4', detail: /line 4/i, build: (tag) => {
        const l = lines(tag);
        return { body: Buffer.from([l[0], l[1], l[2], '{"_msg": broken', l[4], l[5]].join('\n') + '\n') };
      } },
      { what: 'a number on line 2', detail: /line 2/i, build: (tag) => {
        const l = lines(tag);
        return { body: Buffer.from([l[0], '42', l[2]].join('\n') + '\n') };
      } },
      { what: 'an array whose third element is a string', detail: /element 2/i,
        build: (tag) => ({ body: Buffer.from(JSON.stringify([...entries(2, tag), 'oops', ...entries(2, tag)])) }) },
      { what: 'an array cut short', detail: /JSON/, build: (tag) => ({ body: Buffer.from(JSON.stringify(entries(5, tag)).slice(0, -10)) }) },
      { what: 'gzip of NDJSON malformed on line 3', detail: /line 3/i, build: (tag) => {
        const l = lines(tag);
        return { body: gzip([l[0], l[1], '{nope', l[3]].join('\n')), headers: { 'Content-Encoding': 'gzip' } };
      } },
    ];
    const tags: string[] = [];
    for (const c of cases) {
      const tag = uid('bad');
      tags.push(tag);
      const { body, headers } = c.build(tag);
      const r = await ingestRaw(svc.ingest, M.key, body, headers);
      assertJsonError(r, 400, null, c.what, c.detail);
      assert.equal(typeof obj(r).error, 'string', `${c.what}: error slug`);
    }
    // A sentinel written after the refused bodies: once it is readable, anything of theirs would be too.
    const sentinel = uid('sentinel');
    const sentBody = ndjson(entries(1, sentinel));
    assert.equal((await ingestRaw(svc.ingest, M.key, sentBody)).status, 200);
    assert.equal((await waitForRows(svc, M.tenantId, M.key, `tag:=${sentinel}`, 1)).rows.length, 1);
    for (const tag of tags) {
      const { reply, rows } = await query(svc, M.tenantId, M.key, `tag:=${tag} OR ${tag}`);
      assert.equal(reply.status, 200);
      assert.equal(rows.length, 0, `refused body ${tag} left ${rows.length} entries behind`);
    }
    const all = await query(svc, M.tenantId, M.key, '*');
    assert.equal(all.rows.length, 1, 'only the sentinel is in the tenant');
    assert.equal(await usageBytes(svc, M.tenantId, M.key), Buffer.byteLength(sentBody), 'refused bodies are not metered');
  });

  test('metering counts the decompressed bytes of accepted bodies only (refusals of every kind add nothing)', async () => {
    const M = await newAccount(svc, { tier: 'custom' });
    const plain = Buffer.from(ndjson(entries(20, uid('meter'))));
    assert.equal((await ingestRaw(svc.ingest, M.key, gzip(plain), { 'Content-Encoding': 'gzip' })).status, 200);
    assert.equal((await ingestRaw(svc.ingest, M.key, zstd(plain), { 'Content-Encoding': 'zstd' })).status, 200);
    // Refusals: plain 413, JSON 413, 400 coding, 400 corrupt, 400 parse.
    assert.equal((await ingestRaw(svc.ingest, M.key, ndjsonOfSize(CAP + 1, 'm'))).status, 413);
    assert.equal((await ingestRaw(svc.ingest, M.key, gzip(ndjsonOfSize(CAP + 1, 'm')), { 'Content-Encoding': 'gzip' })).status, 413);
    assert.equal((await ingestRaw(svc.ingest, M.key, plain, { 'Content-Encoding': 'br' })).status, 400);
    assert.equal((await ingestRaw(svc.ingest, M.key, plain, { 'Content-Encoding': 'gzip' })).status, 400);
    assert.equal((await ingestRaw(svc.ingest, M.key, '{"_msg":')).status, 400);
    assert.equal(await usageBytes(svc, M.tenantId, M.key), 2 * plain.length);
  });
});

describe('SIGHTLINE_MAX_BODY_SIZE_MB=1 moves the cap to 1 MiB, as received and after decompression', () => {
  before(async () => {
    small = await startedSmall.get();
  });

  test('1 MiB exactly is accepted; one byte more is a plain 413; chunked over 1 MiB too; gzip to 1.5 MiB is JSON 413 naming 1048576', async () => {
    const S = await newAccount(small, { tier: 'custom' });
    const exact = await ingestRaw(small.ingest, S.key, ndjsonOfSize(MIB, uid('small')));
    assert.equal(exact.status, 200, show(exact));
    const over = ndjsonOfSize(MIB + 1, uid('small'));
    await expectPlainTooLarge(() => ingestRaw(small.ingest, S.key, over), '1 MiB + 1');
    const chunked = ndjsonOfSize(MIB + MIB / 2, uid('small'));
    await expectPlainTooLarge(() => ingestRaw(small.ingest, S.key, chunked, {}, 32 * 1024), 'chunked 1.5 MiB');
    const plain = ndjsonOfSize(MIB + MIB / 2, uid('small'));
    const r = await ingestRaw(small.ingest, S.key, gzip(plain), { 'Content-Encoding': 'gzip' });
    const detail = String(assertJsonError(r, 413, 'payload_too_large', 'gzip 1.5 MiB').detail);
    assert.ok(detail.includes(String(MIB)) && detail.includes(String(plain.length)), detail);
    await stillAnswers(small, S.key, 'small cap');
  });

  test('the default service takes the same 1.5 MiB body', async () => {
    const r = await ingestRaw(svc.ingest, A.key, ndjsonOfSize(MIB + MIB / 2, uid('big')));
    assert.equal(r.status, 200, show(r));
  });
});

describe('DESIGN §6 order of checks: route → size → credential → scope → blocked tier → encoding → decompress → parse', () => {
  const over = (): Buffer => ndjsonOfSize(CAP + 100, 'order');

  test('no key and an over-cap Content-Length: 413 (size before credential)', async () => {
    const body = over();
    await expectPlainTooLarge(() => ingestRaw(svc.ingest, null, body), 'no key, over cap');
  });

  test('an unknown key and an over-cap Content-Length: 413, not 403', async () => {
    const body = over();
    await expectPlainTooLarge(() => ingestRaw(svc.ingest, 'sl_unknown', body), 'unknown key, over cap');
  });

  test('no key and a refused Content-Encoding: 401 (credential before encoding)', async () => {
    assertJsonError(await ingestRaw(svc.ingest, null, 'x', { 'Content-Encoding': 'br' }), 401, 'unauthorized', 'no key + br');
  });

  test('no key and a corrupt gzip body: 401 (credential before decompression)', async () => {
    assertJsonError(await ingestRaw(svc.ingest, null, 'not gzip', { 'Content-Encoding': 'gzip' }), 401, 'unauthorized', 'no key + corrupt gzip');
  });

  test('an unknown key and a refused encoding: 403 (credential before encoding)', async () => {
    assertJsonError(await ingestRaw(svc.ingest, 'sl_unknown', 'x', { 'Content-Encoding': 'deflate' }), 403, 'forbidden', 'unknown key + deflate');
  });

  test('a read-only key and a refused encoding: 403 scope (scope before encoding)', async () => {
    const k = await newKey(svc, A.tenantId, ['read']);
    assertJsonError(await ingestRaw(svc.ingest, k.key, 'x', { 'Content-Encoding': 'br' }), 403, 'forbidden', 'read key + br', /scope: ingest/);
  });

  test('a blocked tier (trial_expired) and a refused encoding: 429 (blocked tier before encoding); over-cap still 413 first', async () => {
    const E = await newAccount(svc, { tier: 'trial_expired' });
    const r = await ingestRaw(svc.ingest, E.key, 'x', { 'Content-Encoding': 'br' });
    assertJsonError(r, 429, 'rate_limited', 'trial_expired + br', /trial expired/);
    const body = over();
    await expectPlainTooLarge(() => ingestRaw(svc.ingest, E.key, body), 'trial_expired + over cap');
  });

  test('a refused encoding with a body that is not even that coding: 400 naming the coding (encoding before decompression)', async () => {
    assertJsonError(await ingestRaw(svc.ingest, A.key, 'garbage', { 'Content-Encoding': 'br' }), 400, null, 'br + garbage', /br/);
  });

  test('a gzip body that inflates past the cap and is not JSON: 413, not 400 (decompression before parse)', async () => {
    const r = await ingestRaw(svc.ingest, A.key, gzip(Buffer.alloc(3 * MIB, 0x7a)), { 'Content-Encoding': 'gzip' });
    assertJsonError(r, 413, 'payload_too_large', 'gzip of 3 MiB of "z"');
  });
});

/**
 * A blocking-style client: writes the request head and the whole body, reading nothing until the last byte is
 * handed to the kernel, then reads the reply. Resolves the reply head, or the error that ended the upload.
 */
function writeAllThenRead(base: string, key: string, bodyBytes: number): Promise<{ head: string; error?: string }> {
  const u = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(u.port), u.hostname);
    socket.pause();
    let settled = false;
    const done = (v: { head: string; error?: string }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done({ head: '', error: 'no reply within 30 s' }), 30_000);
    socket.on('error', (e) => done({ head: '', error: e.message }));
    socket.on('connect', () => {
      socket.write(`POST /api/v1/ingest HTTP/1.1\r\nHost: ${u.host}\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${bodyBytes}\r\n\r\n`);
      socket.write(Buffer.alloc(bodyBytes, 0x20), (e) => {
        if (e) {
          done({ head: '', error: e.message });
          return;
        }
        let text = '';
        socket.on('data', (c: Buffer) => {
          text += c.toString('latin1');
          if (text.includes('\r\n\r\n')) done({ head: text.slice(0, text.indexOf('\r\n\r\n')) });
        });
        socket.on('end', () => done({ head: text }));
        socket.resume();
      });
    });
  });
}
