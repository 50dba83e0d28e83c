// The ingest pipeline around the WAL's wait for room (wal-room.ts): a body whose client hangs up while it waits is
// not appended, since that client never sees the 200 and sends the body again; a client that stays gets its rows
// appended and the 200. The parts around the pipeline are fakes that record what was asked of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { once } from 'node:events';
import { ManualClock } from '../clock.js';
import { contextOf } from '../front-doors/context.js';
import { errors } from '../errors.js';
import { KeyResolver } from '../auth/key-resolver.js';
import { hashSecret } from '../auth/api-keys.js';
import type { Account, ControlStore, KeyGrant } from '../stores/control/control-store.js';
import { effectivePlan } from '../limits/plans.js';
import { RefusalCounter } from '../observability/refusals.js';
import { nativeFormat } from './formats/native-format.js';
import type { Admission } from './admission.js';
import { IngestPipeline, type DurableSink, type IngestRoute } from './pipeline.js';

const SECRET = 'sl_test_pipeline_key';
const account: Account = {
  id: 'acc', name: 'a', tier: 'custom', signupAt: 0, trialEndsAt: null, paymentMethod: true, features: {}, limits: {},
};
const grant: KeyGrant = {
  account,
  tenant: { id: 'ten', name: 't', accountId: 'acc', disabled: false, createdAt: 0 },
  key: { id: 'k', tenantId: 'ten', name: 'k', scopes: ['ingest'], expiresAt: null, createdAt: 0, secretHash: hashSecret(SECRET) },
};

/** Admission that admits everything and records what became of each ticket. */
class RecordingAdmission {
  readonly outcomes: string[] = [];
  planOf(a: Account): ReturnType<typeof effectivePlan> {
    return effectivePlan(a);
  }
  checkOpen(): Promise<void> {
    return Promise.resolve();
  }
  admit(): Promise<{ bytes: number }> {
    return Promise.resolve({ bytes: 0 });
  }
  release(): void {
    this.outcomes.push('released');
  }
  commit(): void {
    this.outcomes.push('committed');
  }
}

/** A WAL past its watermark: checkPressure waits until the test makes room. */
class WaitingSink implements DurableSink {
  readonly appended: number[] = [];
  private makeRoom: (() => void) | undefined;
  readonly waiting: Promise<void>;
  private nowWaiting!: () => void;

  constructor() {
    this.waiting = new Promise((resolve) => { this.nowWaiting = resolve; });
  }
  checkPressure(): Promise<void> {
    this.nowWaiting();
    return new Promise((resolve) => { this.makeRoom = resolve; });
  }
  room(): void {
    this.makeRoom?.();
  }
  append(_tenantId: string, _format: unknown, entries: { rows: number }): Promise<void> {
    this.appended.push(entries.rows);
    return Promise.resolve();
  }
}

const route: IngestRoute = {
  format: nativeFormat,
  plane: 'ingest',
  errorShape: 'logs',
  maxReceivedBytes: 1 << 20,
  maxDecodedBytes: 1 << 20,
  tooLarge: (decoded) => errors.payloadTooLarge(decoded, 1 << 20),
  queryKeyAllowed: false,
  firehoseKeyAllowed: false,
};

interface Harness {
  server: Server;
  port: number;
  sink: WaitingSink;
  admission: RecordingAdmission;
  serverSockets: Socket[];
  handled: Promise<void>;
}

async function harness(): Promise<Harness> {
  const store = { findGrantByHash: (hash: string) => Promise.resolve(hash === grant.key.secretHash ? grant : null) };
  const sink = new WaitingSink();
  const admission = new RecordingAdmission();
  const pipeline = new IngestPipeline({
    resolver: new KeyResolver(store as unknown as ControlStore, 60_000),
    clock: new ManualClock(Date.UTC(2026, 0, 1)),
    admission: admission as unknown as Admission,
    sink,
    refusals: new RefusalCounter(),
    log: () => undefined,
  });
  let handledResolve!: () => void;
  const handled = new Promise<void>((resolve) => { handledResolve = resolve; });
  const server = createServer((req, res) => {
    void pipeline.handle(contextOf(req, res), route).then(handledResolve);
  });
  const serverSockets: Socket[] = [];
  server.on('connection', (s) => serverSockets.push(s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, sink, admission, serverSockets, handled };
}

function send(port: number): ReturnType<typeof request> {
  const body = '{"message":"one"}\n{"message":"two"}\n';
  const req = request({
    port, host: '127.0.0.1', method: 'POST', path: '/api/v1/ingest',
    headers: { 'content-type': 'application/x-ndjson', 'x-api-key': SECRET, 'content-length': Buffer.byteLength(body) },
  });
  req.on('error', () => undefined); // the hang-up test destroys it
  req.end(body);
  return req;
}

void test('a body whose client hangs up while it waits for room is not appended, and its bytes are given back', async () => {
  const h = await harness();
  try {
    const client = send(h.port);
    await h.sink.waiting;
    client.destroy();
    const serverSocket = h.serverSockets[0];
    assert.ok(serverSocket);
    if (!serverSocket.destroyed) await once(serverSocket, 'close');
    h.sink.room();
    await h.handled;
    assert.deepEqual(h.sink.appended, []);
    assert.deepEqual(h.admission.outcomes, ['released']);
  } finally {
    h.server.close();
  }
});

void test('a body whose client stays is appended once room is made, and answered 200', async () => {
  const h = await harness();
  try {
    const client = send(h.port);
    const response = once(client, 'response');
    await h.sink.waiting;
    h.sink.room();
    const [res] = (await response) as [import('node:http').IncomingMessage];
    res.resume();
    assert.equal(res.statusCode, 200);
    await h.handled;
    assert.deepEqual(h.sink.appended, [2]);
    assert.deepEqual(h.admission.outcomes, ['committed']);
  } finally {
    h.server.close();
  }
});
