// The decode-only baselines of issue 12 item 2, each measured in a worker thread of its own: the same bodies through
// the same codec on one thread, nothing else. Measured in the bench's own thread, the OTLP logs baseline swung from
// 122,408 to 287,865 records/s between two runs minutes apart, with the stored rate the same (68,410 / 68,420): that
// thread's heap holds every figure's bodies and latencies, and whether a protobufjs round met a major GC decided the
// figure. A fresh isolate per baseline gives the codec a clean heap each time: the steadier and the higher figure,
// which is the one that must not flatter the ratio.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { OtlpTypes } from '../src/ingest/formats/otlp-proto.js';
import { decodeOtlpBody } from '../src/ingest/formats/otlp-common.js';
import { decodeRemoteWriteBody } from '../src/ingest/metrics/remote-write.js';
import { decodeWriteRequestV1 } from '../src/ingest/metrics/remote-write-proto.js';
import { decodeExportMetricsRequest } from '../src/ingest/metrics/otlp-metrics-proto.js';
import { wireLogLines } from '../src/ingest/formats/otlp-logs-plain.js';
import { PlainRow } from '../src/model/plain-row.js';
import { otlpWireColumns } from '../src/ingest/metrics/otlp-metrics-wire.js';

/** The codecs a baseline may name. */
const DECODERS = {
  'otlp-logs': (b: Buffer) => decodeOtlpBody(b, 'protobuf', OtlpTypes.ExportLogsServiceRequest),
  // What the store worker reads of each record: its spans in place, or its entry where it cannot (otlp-logs-plain.ts).
  'otlp-logs-plain': (b: Buffer) => {
    const lines = wireLogLines(b, 0n, false, () => undefined);
    const row = new PlainRow();
    for (let k = 0; k < (lines?.count ?? 0); k++) if (lines?.read(k, row) !== true) lines?.entry(k);
    return lines;
  },
  'remote-write': (b: Buffer) => decodeWriteRequestV1(decodeRemoteWriteBody(b, 'snappy')),
  'otlp-metrics': (b: Buffer) => decodeExportMetricsRequest(b),
  'otlp-metrics-wire': (b: Buffer) => otlpWireColumns(b, Date.now()),
} as const;

export type DecoderName = keyof typeof DECODERS;

interface Job {
  decoder: DecoderName;
  bodies: Uint8Array[];
  entries: number[];
  seconds: number;
}

/**
 * Entries per second that `decoder` reads from `bodies` on one thread: after a warm-up, the best of 5 rounds of
 * `seconds` / 5 (one long loop also swung with heap state).
 */
export function decodeOnlyRate(bodies: { body: Buffer; entries: number }[], decoder: DecoderName, seconds: number): Promise<number> {
  const job: Job = { decoder, bodies: bodies.map((b) => b.body), entries: bodies.map((b) => b.entries), seconds };
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: job });
    worker.once('message', (rate: number) => resolve(rate));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`decode-only worker exited (${code})`)));
  });
}

function measure(job: Job): number {
  const decode = DECODERS[job.decoder];
  const bodies = job.bodies.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  const round = (ms: number): number => {
    const start = performance.now();
    let entries = 0;
    for (let i = 0; performance.now() - start < ms; i++) {
      const body = bodies[i % bodies.length];
      if (!body) break;
      decode(body);
      entries += job.entries[i % bodies.length] ?? 0;
    }
    return entries / ((performance.now() - start) / 1000);
  };
  round(500);
  return Math.max(...Array.from({ length: 5 }, () => round((job.seconds * 1000) / 5)));
}

if (!isMainThread && parentPort) parentPort.postMessage(measure(workerData as Job));
