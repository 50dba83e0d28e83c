/**
 * Prometheus remote write (`POST /api/v1/write`, app plane; wire-formats.md §3.14), versions 1.0
 * (`prometheus.WriteRequest`) and 2.0 (`io.prometheus.write.v2.Request`).
 *
 * Steps for the pipeline, in the spec's order of checks (DESIGN §6):
 *   checkRemoteWriteCompressedSize(raw.length)         8 MiB as received → 413 `metrics payload too large (8MB cap)`
 *   decodeRemoteWriteBody(raw, contentEncoding)        snappy block; declared length over 64 MiB → 413 first
 *   parseRemoteWrite(decoded, req)                     protobuf → samples; over 500,000 samples → 413
 *   remoteWriteReplyHeaders(parsed)                    the 2.0 `X-Prometheus-Remote-Write-*-Written` headers
 * (parseRemoteWriteRequest does the first three in one call.)
 *
 * Storage: float samples as sent, stale markers (the 0x7ff0000000000002 NaN) kept bit for bit. Native
 * histograms become a classic histogram, `<name>_bucket{le}` + `<name>_sum` + `<name>_count`
 * (remote-write-histograms.ts); they count once each in stats.histograms, not in stats.samples.
 * Exemplars are counted, not stored. The 2.0 `created_timestamp` is ignored.
 */
import { errors, ServiceError } from '../../errors.js';
import { snappyDeclaredLength as declaredLength, uncompressSnappyBlock } from '../snappy-block.js';
import { setLabel, type MetricMetadata, type MetricSample } from '../../model/metric.js';
import { headerValue, parseContentType, type MetricsRequest, type ParsedMetrics } from './parsed-metrics.js';
import { nativeHistogramSamples } from './remote-write-histograms.js';
import {
  METRIC_TYPE_NAMES, decodeRequestV2, decodeWriteRequestV1, toNumber, type NativeHistogram, type RequestV2,
  type Sample, type WriteRequestV1,
} from './remote-write-proto.js';

/** Spec, Limits: 8 MB compressed, 64 MB decompressed, 500,000 samples (MiB per DESIGN §6 Units). */
export const REMOTE_WRITE_MAX_COMPRESSED_BYTES = 8 * 1024 * 1024;
export const REMOTE_WRITE_MAX_DECODED_BYTES = 64 * 1024 * 1024;
export const REMOTE_WRITE_MAX_SAMPLES = 500_000;

export const PROTO_V1 = 'prometheus.WriteRequest';
export const PROTO_V2 = 'io.prometheus.write.v2.Request';

/** The remote-write refusals the shared catalogue (errors.ts) does not have; metrics bodies carry `detail` only. */
export const remoteWriteErrors = {
  tooManySamples: (n: number) => new ServiceError(413, 'payload_too_large',
    `remote write request has ${n} samples, over the limit of ${REMOTE_WRITE_MAX_SAMPLES}`, 'payload_too_large'),
  decodedTooLarge: (declared: number) => new ServiceError(413, 'payload_too_large',
    `remote write body declares ${declared} bytes uncompressed, over the limit of ${REMOTE_WRITE_MAX_DECODED_BYTES} bytes`,
    'payload_too_large'),
  /** 415 lets a 2.x sender fall back to 1.0 (§3.14). */
  unsupportedProto: (proto: string) => new ServiceError(415, 'unsupported_media_type',
    `Unsupported remote write message ${proto} (accepted: ${PROTO_V1}, ${PROTO_V2})`, 'bad_request'),
} as const;

export function checkRemoteWriteCompressedSize(bytes: number): void {
  if (bytes > REMOTE_WRITE_MAX_COMPRESSED_BYTES) throw errors.metricsTooLarge();
}

export function checkRemoteWriteSampleCount(samples: number): void {
  if (samples > REMOTE_WRITE_MAX_SAMPLES) throw remoteWriteErrors.tooManySamples(samples);
}

/** The uncompressed length a snappy block declares: its leading little-endian base-128 varint (≤ 32 bits). */
export function snappyDeclaredLength(raw: Uint8Array): number {
  const declared = declaredLength(raw);
  if (declared === null) throw errors.corruptBody('snappy', 'no valid uncompressed length at the start of the block');
  return declared;
}

/**
 * Raw request bytes → protobuf bytes. Prometheus, Alloy and the npm `prometheus-remote-write` client send
 * snappy BLOCK format, the last with no Content-Encoding at all (§6), so an absent header means snappy too,
 * as in Prometheus's own receiver. The declared length is checked against 64 MiB before anything is
 * allocated. `identity` passes through; any other encoding was already undone by the shared pipeline.
 */
export function decodeRemoteWriteBody(raw: Buffer, contentEncoding: string | undefined): Buffer {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'snappy') return raw;
  if (raw.length === 0) return raw;
  const declared = snappyDeclaredLength(raw);
  if (declared > REMOTE_WRITE_MAX_DECODED_BYTES) throw remoteWriteErrors.decodedTooLarge(declared);
  try {
    return uncompressSnappyBlock(raw);
  } catch (e) {
    throw errors.corruptBody('snappy', e instanceof Error ? e.message : String(e));
  }
}

/**
 * 2.0 when Content-Type says `proto=io.prometheus.write.v2.Request`, or, with no `proto` parameter, when
 * `X-Prometheus-Remote-Write-Version` is 2.x; else 1.0. An unknown `proto` → 415.
 */
export function remoteWriteVersion(headers: MetricsRequest['headers']): 1 | 2 {
  const proto = parseContentType(headerValue(headers, 'content-type')).params.proto;
  if (proto !== undefined) {
    if (proto === PROTO_V2) return 2;
    if (proto === PROTO_V1) return 1;
    throw remoteWriteErrors.unsupportedProto(proto);
  }
  const version = headerValue(headers, 'x-prometheus-remote-write-version')?.trim() ?? '';
  return /^2(\.|$)/.test(version) ? 2 : 1;
}

interface Series {
  samples: Sample[];
  histograms: NativeHistogram[];
  exemplars: unknown[];
}

function countSamples(timeseries: readonly Series[]): number {
  let n = 0;
  for (const ts of timeseries) n += ts.samples.length + ts.histograms.length;
  return n;
}

class Collector {
  readonly samples: MetricSample[] = [];
  readonly metadata = new Map<string, MetricMetadata>();
  readonly stats = { samples: 0, histograms: 0, exemplars: 0 };

  series(name: string, labels: Record<string, string>, ts: Series, where: string): void {
    for (const s of ts.samples) this.samples.push({ name, labels, timeMs: toNumber(s.timestamp), value: s.value });
    ts.histograms.forEach((h, k) => {
      for (const s of nativeHistogramSamples(name, labels, h, `${where} histogram ${k}`)) this.samples.push(s);
    });
    this.stats.samples += ts.samples.length;
    this.stats.histograms += ts.histograms.length;
    this.stats.exemplars += ts.exemplars.length;
  }

  meta(m: MetricMetadata): void {
    if (m.name !== '' && !this.metadata.has(m.name)) this.metadata.set(m.name, m);
  }

  result(): ParsedMetrics {
    return { samples: this.samples, metadata: [...this.metadata.values()], stats: this.stats };
  }
}

/** Label pairs → `__name__` + the rest; empty values are absent labels; no name or a repeated name → 400. */
export function splitLabels(pairs: Iterable<readonly [string, string]>, where: string): { name: string; labels: Record<string, string> } {
  let name = '';
  const labels: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [k, v] of pairs) {
    if (seen.has(k)) throw errors.badRequest(`${where}: label ${k} appears twice`);
    seen.add(k);
    if (k === '__name__') name = v;
    else if (v !== '') setLabel(labels, k, v);
  }
  if (name === '') throw errors.badRequest(`${where}: no __name__ label`);
  return { name, labels };
}

const typeName = (t: number): string => METRIC_TYPE_NAMES[t] ?? 'unknown';

/** A 1.0 MetricMetadata as the metadata API keeps it. */
export function metadataOf(type: number, name: string, help: string, unit: string): MetricMetadata {
  return { name, type: typeName(type), help, unit };
}

function translateV1(req: WriteRequestV1): ParsedMetrics {
  checkRemoteWriteSampleCount(countSamples(req.timeseries));
  const c = new Collector();
  req.timeseries.forEach((ts, i) => {
    const where = `timeseries ${i}`;
    const { name, labels } = splitLabels(ts.labels.map((l) => [l.name, l.value] as const), where);
    c.series(name, labels, ts, where);
  });
  for (const m of req.metadata) c.meta(metadataOf(m.type, m.metricFamilyName, m.help, m.unit));
  return c.result();
}

function translateV2(req: RequestV2): ParsedMetrics {
  checkRemoteWriteSampleCount(countSamples(req.timeseries));
  const c = new Collector();
  const { symbols } = req;
  req.timeseries.forEach((ts, i) => {
    const where = `timeseries ${i}`;
    const symbol = (ref: number): string => {
      const s = symbols[ref];
      if (s === undefined) throw errors.badRequest(`${where}: symbol reference ${ref} is outside the ${symbols.length} symbols`);
      return s;
    };
    const refs = ts.labelsRefs;
    if (refs.length % 2 !== 0) throw errors.badRequest(`${where}: labels_refs has an odd length (${refs.length})`);
    const pairs: (readonly [string, string])[] = [];
    for (let k = 0; k < refs.length; k += 2) pairs.push([symbol(refs[k] ?? 0), symbol(refs[k + 1] ?? 0)]);
    const { name, labels } = splitLabels(pairs, where);
    c.series(name, labels, ts, where);
    const m = ts.metadata;
    if (m && (m.type !== 0 || m.helpRef !== 0 || m.unitRef !== 0)) {
      c.meta({ name, type: typeName(m.type), help: symbol(m.helpRef), unit: symbol(m.unitRef) });
    }
  });
  return c.result();
}

function decodeRequest(body: Buffer, version: 1 | 2): WriteRequestV1 | RequestV2 {
  try {
    return version === 2 ? decodeRequestV2(body) : decodeWriteRequestV1(body);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw errors.badRequest(`body is not a remote write ${version === 2 ? PROTO_V2 : PROTO_V1}: ${why}`);
  }
}

/** Decoded protobuf bytes (see decodeRemoteWriteBody) → samples. The version comes from the headers. */
export function parseRemoteWrite(body: Buffer, req: MetricsRequest): ParsedMetrics {
  const version = remoteWriteVersion(req.headers);
  const decoded = decodeRequest(body, version);
  return version === 2 ? translateV2(decoded as RequestV2) : translateV1(decoded as WriteRequestV1);
}

/**
 * parseRemoteWrite's stats and refusals without its samples (IngestFormat.count, issue 12 item 2), and how many
 * store rows they make (samples and metadata, as pipeline.ts readEntries counts a parsed batch). A 1.0 request of
 * float samples only is counted: every sample becomes one row, and only the labels can refuse it, checked series by
 * series as translateV1 does. Anything else (2.0's symbol references, native histograms, whose conversion can refuse
 * too) is parsed.
 */
export function countRemoteWrite(body: Buffer, req: MetricsRequest): { stats: ParsedMetrics['stats']; rows: number } {
  const version = remoteWriteVersion(req.headers);
  const decoded = decodeRequest(body, version);
  if (version === 2 || decoded.timeseries.some((ts) => ts.histograms.length > 0)) {
    const parsed = version === 2 ? translateV2(decoded as RequestV2) : translateV1(decoded as WriteRequestV1);
    return { stats: parsed.stats, rows: parsed.samples.length + parsed.metadata.length };
  }
  const { timeseries } = decoded as WriteRequestV1;
  checkRemoteWriteSampleCount(countSamples(timeseries));
  const stats = { samples: 0, histograms: 0, exemplars: 0 };
  timeseries.forEach((ts, i) => {
    splitLabels(ts.labels.map((l) => [l.name, l.value] as const), `timeseries ${i}`);
    stats.samples += ts.samples.length;
    stats.exemplars += ts.exemplars.length;
  });
  // A metadata-only request (Prometheus sends them) is rows too: one per metric family named (Collector.meta).
  const families = new Set<string>();
  for (const m of (decoded as WriteRequestV1).metadata) if (m.metricFamilyName !== '') families.add(m.metricFamilyName);
  return { stats, rows: stats.samples + families.size };
}

/** Size check, snappy, parse: the whole remote-write body path for a raw request body. */
export function parseRemoteWriteRequest(raw: Buffer, req: MetricsRequest): ParsedMetrics {
  checkRemoteWriteCompressedSize(raw.length);
  return parseRemoteWrite(decodeRemoteWriteBody(raw, headerValue(req.headers, 'content-encoding')), req);
}

/** Remote write 2.0: the receiver MUST report what it wrote (§3.14); harmless on 1.0 replies. */
export function remoteWriteReplyHeaders(parsed: ParsedMetrics): Record<string, string> {
  return {
    'X-Prometheus-Remote-Write-Samples-Written': String(parsed.stats.samples),
    'X-Prometheus-Remote-Write-Histograms-Written': String(parsed.stats.histograms),
    'X-Prometheus-Remote-Write-Exemplars-Written': String(parsed.stats.exemplars),
  };
}
