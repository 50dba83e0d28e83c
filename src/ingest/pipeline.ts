// The one path every ingest request takes, in the order of DESIGN §6: size as received (413 text) →
// credential (401/403/503) → scope (403) → plan gate and blocked tier (503/403/429) → Content-Encoding
// and decompression (400/413) → parse (400) → limiters and daily volume (429) → WAL (429) → fsync → 2xx
// → metering. Formats differ only in their parser and reply (format.ts).
import type { IncomingMessage } from 'node:http';
import type { RequestContext } from '../front-doors/context.js';
import { asServiceError, sendError, sendJson, sendPlainTooLarge, type ErrorShape } from '../front-doors/reply.js';
import { extractAppCredential, extractIngestCredential, distinctHeaders } from '../auth/credentials.js';
import { authorize } from '../auth/authorize.js';
import type { KeyResolver } from '../auth/key-resolver.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import type { CountedBody, FormatRequest, IngestFormat, ParsedBody } from './format.js';
import { BodyTooLargeError, ClientAbortedError, decodeBody, readBody } from './body.js';
import { batchEntryCount, emptyBatch, type Batch } from '../model/batch.js';
import { msToNs } from '../model/time.js';
import type { Admission } from './admission.js';
import type { RefusalCounter } from '../observability/refusals.js';
import type { EffectivePlan } from '../limits/plans.js';

/** How one path is served: which plane's credential rules, caps, gate and error body shape. */
export interface IngestRoute {
  format: IngestFormat;
  plane: 'ingest' | 'app';
  errorShape: ErrorShape;
  /** Cap on the body as received, bytes. */
  maxReceivedBytes: number;
  /**
   * How an over-cap body as received is refused: logs/traces are cut off with plain text by the HTTP
   * layer (spec, Errors 413); metrics answer their JSON `detail` (spec, Errors 413 metrics).
   */
  receivedTooLarge?: () => ServiceError;
  /** Cap after decompression, bytes, and the error that reports it. */
  maxDecodedBytes: number;
  tooLarge: (decodedBytesText: string) => ServiceError;
  queryKeyAllowed: boolean;
  firehoseKeyAllowed: boolean;
  /** A plan gate (metrics / replay off → 503). */
  gate?: (plan: EffectivePlan) => void;
  /** Extra body fields of this route's error replies, for clients that read their own error shape. */
  errorFields?: (e: ServiceError, headers: IncomingMessage['headers']) => Record<string, string | number>;
  /** Extra headers on every reply of this route (Elasticsearch's product header, …). */
  replyHeaders?: Record<string, string>;
}

/** Something that takes normalized batches durably: the WAL in production. */
export interface DurableSink {
  /**
   * Throws errors.walFull() / errors.backpressure() when it cannot take `bytes` more; past the backpressure watermark
   * it first waits, within bounds, for room (wal-room.ts).
   */
  checkPressure(bytes: number): Promise<void>;
  /**
   * `entries.batch` is absent when the body was only counted (IngestFormat.count); `source` is the body itself,
   * which a format with a walKey is stored from (wal-raw.ts).
   */
  append(tenantId: string, format: IngestFormat, entries: { batch: Batch | undefined; rows: number }, source: { body: Buffer; req: FormatRequest }): Promise<void>;
}

export interface PipelineDeps {
  resolver: KeyResolver;
  clock: Clock;
  admission: Admission;
  sink: DurableSink;
  refusals: RefusalCounter;
  log: (msg: string) => void;
}

export class IngestPipeline {
  constructor(private readonly deps: PipelineDeps) {}

  async handle(ctx: RequestContext, route: IngestRoute): Promise<void> {
    const { req, res } = ctx;
    let tenantId = '';
    try {
      if (declaredLength(req) > route.maxReceivedBytes) throw new BodyTooLargeError(route.maxReceivedBytes);
      const headers = distinctHeaders(req.headers, req.headersDistinct);
      const credential = route.plane === 'ingest'
        ? extractIngestCredential(headers, ctx.query, route)
        : extractAppCredential(headers, ctx.query);
      const nowMs = this.deps.clock.now();
      const grant = await authorize(credential, this.deps.resolver, route.plane === 'ingest' ? 'cached' : 'fresh', { scope: 'ingest' }, nowMs);
      tenantId = grant.tenant.id;
      const plan = this.deps.admission.planOf(grant.account);
      route.gate?.(plan);
      await this.deps.admission.checkOpen(grant.account, plan);

      const raw = await readBody(req, route.maxReceivedBytes);
      const body = await decodeBody(raw, req.headers['content-encoding'], {
        maxDecodedBytes: route.maxDecodedBytes,
        tooLarge: route.tooLarge,
      });
      const formatReq: FormatRequest = { path: ctx.path, query: ctx.query, headers: req.headers, nowNs: msToNs(nowMs) };
      const { counted, batch } = await readEntries(route.format, body, formatReq);
      const entries = counted.entries;

      const ticket = await this.deps.admission.admit(grant.account, grant.tenant.id, plan, entries, body.length);
      try {
        if (counted.rows > 0) {
          await this.deps.sink.checkPressure(body.length);
          // A client that hung up before its body is appended (most often while it waited for room, wal-room.ts)
          // never gets the 200 and sends the body again: appending it now would store its rows twice.
          if (req.socket.destroyed) throw new ClientAbortedError('Client closed the connection while the body waited for room; nothing was stored');
          const walReq = counted.bodyWalked === true ? { ...formatReq, bodyWalked: true } : formatReq;
          await this.deps.sink.append(grant.tenant.id, route.format, { batch, rows: counted.rows }, { body, req: walReq });
        }
      } catch (e) {
        this.deps.admission.release(ticket);
        throw e;
      }
      this.deps.admission.commit(ticket, counted.signal);
      if (route.replyHeaders) for (const [k, v] of Object.entries(route.replyHeaders)) res.setHeader(k, v);
      // A counted body's reply reads only its replyData (replies never read the batch of a format that counts).
      const parsed: ParsedBody = { batch: batch ?? emptyBatch(), signal: counted.signal, replyData: counted.replyData };
      if (route.format.reply) route.format.reply(ctx, entries, parsed);
      else sendJson(res, 200, { status: 'ok', accepted: entries });
    } catch (e) {
      if (e instanceof BodyTooLargeError) {
        this.deps.refusals.count(tenantId, 'payload_too_large');
        if (route.receivedTooLarge) {
          res.shouldKeepAlive = false; // the rest of the upload is not read
          req.resume();
          sendError(res, route.receivedTooLarge(), route.errorShape, route.replyHeaders);
        } else {
          sendPlainTooLarge(req, res, route.maxReceivedBytes);
        }
        return;
      }
      const err = asServiceError(e, this.deps.log);
      this.deps.refusals.count(tenantId, err.reason);
      sendError(res, err, route.errorShape, route.replyHeaders, route.errorFields?.(err, req.headers));
    }
  }
}

/**
 * The body counted (a format with count(): the store parses it later, from the WAL) or parsed into its batch. Either
 * way the same refusals, the same counts.
 */
async function readEntries(format: IngestFormat, body: Buffer, req: FormatRequest): Promise<{ counted: CountedBody; batch?: Batch }> {
  if (format.count) return { counted: await format.count(body, req) };
  const parsed = await format.parse(body, req);
  const rows = parsed.batch.logs.length + parsed.batch.spans.length + (parsed.batch.samples?.length ?? 0)
    + (parsed.batch.metadata?.length ?? 0) + (parsed.batch.replay?.length ?? 0);
  return { counted: { entries: batchEntryCount(parsed.batch), rows, signal: parsed.signal, replyData: parsed.replyData }, batch: parsed.batch };
}

function declaredLength(req: IncomingMessage): number {
  const v = req.headers['content-length'];
  if (v === undefined) return 0;
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
}
