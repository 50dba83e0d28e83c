// The metric wire formats on the shared ingest pipeline (issue 5): each parser's samples become a batch,
// and each format answers what its clients read — OTLP an ExportMetricsServiceResponse in the request's
// encoding, remote write and line protocol 204 (spec, App plane paths).
import type { IngestFormat, FormatRequest } from '../format.js';
import type { DeferredSamples } from '../../model/batch.js';
import { headerValue, type ParsedMetrics } from './parsed-metrics.js';
import { parseOtlpMetrics, otlpMetricsReply, protobufFirst } from './otlp-metrics.js';
import { otlpWireColumns, otlpWireCount } from './otlp-metrics-wire.js';
import { checkRemoteWriteSampleCount, countRemoteWrite, decodeRemoteWriteBody, parseRemoteWrite, remoteWriteReplyHeaders, remoteWriteVersion } from './remote-write.js';
import { wireSampleColumns } from './remote-write-wire.js';
import { wireCount } from './remote-write-count.js';
import { parseInfluxLines } from './influx-line.js';
import { sendEmpty } from '../../front-doors/reply.js';
import { nsToMs } from '../../model/time.js';

function toParsed(m: ParsedMetrics) {
  return { batch: { logs: [], spans: [], samples: m.samples, metadata: m.metadata }, signal: 'metrics' as const, replyData: m };
}

const metricsRequest = (req: FormatRequest) => ({ query: req.query, headers: req.headers, nowMs: nsToMs(req.nowNs) });

/** IngestFormat.deferSamples over a format's own parser: the body is parsed when the store reads it. */
function deferred(rows: number, parse: () => ParsedMetrics, onBad: (why: string) => void): DeferredSamples {
  return {
    rows,
    read() {
      try {
        const { samples, metadata } = parse();
        return { samples, metadata };
      } catch (e) {
        onBad(e instanceof Error ? e.message : String(e));
        return { samples: [], metadata: [] };
      }
    },
  };
}

export const otlpMetricsFormat: IngestFormat = {
  name: 'otlp',
  walKey: 'otlp-metrics',
  parse: (body, req) => toParsed(parseOtlpMetrics(body, metricsRequest(req))),
  deferSamples(body, req, rows, onBad) {
    const samples = deferred(rows, () => parseOtlpMetrics(body, metricsRequest(req)), onBad);
    if (!protobufFirst(body, headerValue(req.headers, 'content-type'))) return samples;
    return {
      ...samples,
      readColumns() {
        try {
          return otlpWireColumns(body, metricsRequest(req).nowMs, req.bodyWalked === true, rows);
        } catch {
          return null; // read() then meets the same trouble and reports it
        }
      },
    };
  },
  count(body, req) {
    const request = metricsRequest(req);
    const fromWire = protobufFirst(body, headerValue(req.headers, 'content-type')) ? otlpWireCount(body, request.nowMs) : null;
    if (fromWire === null) {
      // The decoder's count: the body parsed whole, as before the wire reader (JSON, histograms, refused points).
      const parsed = parseOtlpMetrics(body, request);
      return { entries: 0, rows: parsed.samples.length + parsed.metadata.length, signal: 'metrics', replyData: parsed };
    }
    // The reply reads only the encoding and a partial success, which a body read from the wire never has.
    const replyData: ParsedMetrics = { samples: [], metadata: [], stats: fromWire.stats, encoding: 'protobuf' };
    return { entries: 0, rows: fromWire.rows, signal: 'metrics', replyData, bodyWalked: true };
  },
  reply(ctx, _accepted, parsed) {
    const { contentType, body } = otlpMetricsReply(parsed.replyData as ParsedMetrics);
    ctx.res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': body.length });
    ctx.res.end(body);
  },
};

/**
 * The protobuf bytes of a remote-write body. Senders often omit Content-Encoding on a snappy body (wire-formats §6);
 * with the header present the pipeline has already decoded it, and it must not be decoded twice.
 */
function remoteWriteProtobuf(body: Buffer, req: FormatRequest): Buffer {
  return req.headers['content-encoding'] === undefined ? decodeRemoteWriteBody(body, undefined) : body;
}

export const remoteWriteFormat: IngestFormat = {
  name: 'remote_write',
  walKey: 'remote-write',
  parse(body, req) {
    const parsed = parseRemoteWrite(remoteWriteProtobuf(body, req), metricsRequest(req));
    checkRemoteWriteSampleCount(parsed.stats.samples + parsed.stats.histograms);
    return toParsed(parsed);
  },
  deferSamples(body, req, rows, onBad) {
    const samples = deferred(rows, () => parseRemoteWrite(remoteWriteProtobuf(body, req), metricsRequest(req)), onBad);
    if (remoteWriteVersion(req.headers) !== 1) return samples;
    return {
      ...samples,
      readColumns() {
        try {
          return wireSampleColumns(remoteWriteProtobuf(body, req), req.bodyWalked === true, rows);
        } catch {
          return null; // read() then meets the same trouble and reports it
        }
      },
    };
  },
  count(body, req) {
    const protobuf = remoteWriteProtobuf(body, req);
    const fromWire = remoteWriteVersion(req.headers) === 1 ? wireCount(protobuf) : null;
    const { stats, rows } = fromWire ?? countRemoteWrite(protobuf, metricsRequest(req));
    checkRemoteWriteSampleCount(stats.samples + stats.histograms);
    // The reply reads only the stats (remoteWriteReplyHeaders).
    const replyData: ParsedMetrics = { samples: [], metadata: [], stats };
    // A body counted from the wire was walked; its WAL record says so, and the store's read does not walk it again.
    return { entries: 0, rows, signal: 'metrics', replyData, bodyWalked: fromWire !== null };
  },
  reply(ctx, _accepted, parsed) {
    sendEmpty(ctx.res, 204, remoteWriteReplyHeaders(parsed.replyData as ParsedMetrics));
  },
};

export const influxFormat: IngestFormat = {
  name: 'influx',
  parse: (body, req) => toParsed(parseInfluxLines(body, metricsRequest(req))),
  reply(ctx) {
    sendEmpty(ctx.res, 204);
  },
};
