// The narrow seam every wire format plugs into (STYLE.md habit 1): bytes in, one normalized batch out.
// A format knows nothing of tenants, limits or storage; it may shape its own success reply, since
// shippers read their own reply shapes (DESIGN §5: replies are supersets of {status, accepted}).
import type { IncomingHttpHeaders } from 'node:http';
import type { Batch, DeferredSamples, LogWindows, Signal } from '../model/batch.js';
import type { RequestContext } from '../front-doors/context.js';

export interface FormatRequest {
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** Service time of receipt, unix ns: the default event time and every entry's observed time. */
  readonly nowNs: bigint;
  /**
   * Set on a body read back from the WAL that passed proto-walk.ts when it was counted (CountedBody.bodyWalked): the
   * store's wire reader then need not walk the same bytes again (the WAL's CRC guards them in between).
   */
  readonly bodyWalked?: boolean;
}

export interface ParsedBody {
  batch: Batch;
  /** The metering signal (OTLP from a browser is `rum`, DESIGN §6 Metering). */
  signal: Signal;
  /** Anything the format's reply needs (a Firehose requestId, ES item list, …). */
  replyData?: unknown;
}

/**
 * What the request thread needs of a body it does not parse into a batch (IngestFormat.count): how many entries and
 * store rows it holds, its metering signal, and the reply's data — the same as parse() would give.
 */
export interface CountedBody {
  entries: number;
  rows: number;
  signal: Signal;
  replyData?: unknown;
  /** The count walked the body with proto-walk.ts and found that it decodes; kept in its WAL record (wal-raw.ts). */
  bodyWalked?: boolean;
}

export interface IngestFormat {
  /** Stored with every row (`native`, `otlp`, `loki`, …). */
  readonly name: string;
  /**
   * Set when parse() reads nothing but the body, `nowNs`, `path`, `query` and the headers of wal-raw.ts REPLAY_HEADERS,
   * and always gives the same batch from them: the WAL then keeps the body itself and the store parses it again
   * (issue 12 item 1). Unique across formats (several are named `otlp`); replay-formats.ts lists them by it.
   */
  readonly walKey?: string;
  parse(body: Buffer, req: FormatRequest): ParsedBody | Promise<ParsedBody>;
  /**
   * Only with a walKey: refuses exactly what parse() refuses (the same errors) and counts what it would give,
   * without building the batch. The request thread then does this much and no more; the store parses the body
   * from the WAL (issue 12 item 1: each line is turned into rows once, off the request thread).
   */
  count?(body: Buffer, req: FormatRequest): CountedBody | Promise<CountedBody>;
  /**
   * Only with a walKey, for a format whose parse() gives log entries and nothing else: those entries as windows parsed
   * while they are read (model/batch.ts LogWindows), for a store that appends as it parses; null when the body is
   * better parsed whole. `rows` is what count() gave. An entry that no longer parses is left out and reported to
   * `onBadEntry`.
   */
  logWindows?(body: Buffer, req: FormatRequest, rows: number, onBadEntry: (why: string) => void): LogWindows | null;
  /**
   * Only with a walKey, for a format whose parse() gives metric samples and metadata and nothing else: those, parsed
   * when a store that writes batch by batch reads them (model/batch.ts DeferredSamples). `rows` is what count()
   * gave. A body that no longer parses gives nothing, reported to `onBad`.
   */
  deferSamples?(body: Buffer, req: FormatRequest, rows: number, onBad: (why: string) => void): DeferredSamples;
  /** Writes the 2xx reply; without it the spec's `{"status":"ok","accepted":N}`. */
  reply?(ctx: RequestContext, accepted: number, parsed: ParsedBody): void;
}
