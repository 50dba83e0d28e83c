// The write-ahead log (DESIGN §1, "WAL before ack"): append() resolves only once the record is written
// and fsynced, so a 200 survives a crash. Appends that arrive while an fsync is in flight share the next
// write+fsync (group commit). Acked batches stay in memory and the drain (wal-drain.ts) writes them to the
// telemetry store in large batches, each write carrying the WAL position it reaches; on open, every record
// past the store's position is replayed from the segment files before anything else happens.
import { promises as fs } from 'node:fs';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { TenantBatch } from '../model/batch.js';
import type { WalTarget } from '../stores/telemetry/telemetry-store.js';
import type { FormatRequest, IngestFormat } from './format.js';
import { RECORD_HEADER_BYTES, encodeRecord, rowCount, scanRecords, type FramedRecord } from './wal-codec.js';
import { decodeAnyPayload, encodeRawRecord, type RecordParts, type RecordPieces } from './wal-raw.js';
import { replayFormats } from './replay-formats.js';
import { Drain, type Queued } from './wal-drain.js';
import { ActiveSegment, listSegments, readSegmentRange, segmentEnd, type Segment } from './wal-segment.js';
import { RoomWaiters } from './wal-room.js';

export type WalPressure = 'ok' | 'wal_full' | 'backpressure';

export interface WalOptions {
  /** The directory of the segment files, `<dataDir>/wal` (DESIGN §1); created if missing. */
  dir: string;
  store: WalTarget;
  /** Unflushed bytes past which pressure() is `wal_full` (DESIGN §1, default 1 GiB via config). */
  maxBytes: number;
  /** Segment size; a segment is deleted once the store has committed past its end. Default 64 MiB. */
  segmentBytes?: number;
  /**
   * Most rows per store.write. Default two DuckDB row groups, 245,760 rows: large writes are what DuckDB appends
   * fastest, and one of a row group or more skips DuckDB's own WAL (wal-drain.ts writeLength).
   */
  batchRows?: number;
  /**
   * The store's row group, 122,880 rows in DuckDB: no write ends in a group less than half full. At 125,000 rows a
   * write, most spilled a sliver of a few thousand rows into a second group, and the checkpoints that merged those
   * slivers left their old blocks free in the file: 0.29 bytes on disk per raw NDJSON byte through the service
   * against 0.185 without slivers (issue 12 item 3).
   */
  rowGroupRows?: number;
  /** Longest wait before a partial batch goes to the store (default 200 ms). */
  batchIntervalMs?: number;
  /**
   * Longest wait for a row group's worth of records while they come fast enough to fill one by then (default 1 s;
   * wal-drain.ts windowLeft). Under DESIGN §1's 2 s, with the write's own time.
   */
  groupWindowMs?: number;
  /** Record bytes of acked batches kept in memory; past this the drain reads them back from disk. Default 64 MiB. */
  memoryBytes?: number;
  /** Store write failures (retried), segment deletion failures, a torn tail cut off on open. */
  onError?: (e: unknown) => void;
  /**
   * Longest a body waits for room past the backpressure watermark before its 429 (wal-room.ts). Default 5 s, the
   * back-off the 429 itself asks for (spec, 429 details 4): a write of the bench's size commits every 2.5-4 s.
   */
  roomWaitMs?: number;
  /** Bytes of bodies that may wait for room at once (wal-room.ts). Default a sixteenth of maxBytes. */
  maxWaitingBytes?: number;
}

export interface WalStats {
  /** Bytes and records made durable since open. */
  appendedBytes: number;
  appendedRecords: number;
  /** Appended (or replayed) but not yet committed by the store: what pressure() looks at. */
  unflushedBytes: number;
  unflushedRecords: number;
  fsyncs: number;
  /** Records that shared the last write+fsync (group commit). */
  lastFsyncRecords: number;
  /** Position after the last durable record, and the store's committed position. */
  position: bigint;
  committedPosition: bigint;
  /** Consecutive failed store writes (0 when healthy). */
  storeFailures: number;
  /** Records found past the store's position on open, and replayed. */
  replayedRecords: number;
}

/** The body a batch was parsed from, for a format that can parse it again (IngestFormat.walKey, wal-raw.ts). */
export interface RawSource {
  format: IngestFormat & { walKey: string };
  req: FormatRequest;
  body: Buffer;
}

export interface Wal {
  /**
   * Durable when it resolves. With `raw`, the record holds the body and request facts instead of the batch
   * re-serialized (issue 12 item 1). The batch and body are kept by reference until drained: do not mutate them.
   */
  append(tb: TenantBatch, raw?: RawSource): Promise<void>;
  /**
   * append() of a body that was counted, not parsed (IngestFormat.count): the record holds the body, and the batch
   * is parsed from it where the store needs it (the DuckDB worker, or the drain for a store on this thread).
   */
  appendUnparsed(tenantId: string, rows: number, raw: RawSource): Promise<void>;
  pressure(): WalPressure;
  /**
   * pressure() once a body of `bytes` may be appended: past the backpressure watermark it waits, within bounds, for
   * the store to commit and make room (wal-room.ts), and answers what the pressure is then.
   */
  waitForRoom(bytes: number): Promise<WalPressure>;
  /** From now on no body waits for room: the waiting ones get their answer now (a stopping service, issue 12 item 6). */
  endRoomWaits(): void;
  /** Resolves when everything appended before the call is committed to the store. */
  flush(): Promise<void>;
  /**
   * Stops the WAL: appends in flight finish (they are durable before their 200), then the drain writes what it can
   * for at most `drainForMs` (default: until the backlog is in the store). What is left stays in the segments and is
   * replayed at the next start (issue 12 item 6: SIGTERM exits promptly; nothing acknowledged is lost either way).
   */
  close(opts?: { drainForMs?: number }): Promise<void>;
  stats(): WalStats;
}

const MIB = 1024 * 1024;
/** Decoded rows between event-loop turns while reading records back (replay): keeps acks flowing. */
const DECODE_ROWS_PER_YIELD = 2048;

export async function openWal(opts: WalOptions): Promise<Wal> {
  const dir = opts.dir;
  const onError = opts.onError ?? ((e: unknown) => console.error('wal:', e));
  await fs.mkdir(dir, { recursive: true });
  const storePos = await opts.store.walPosition();
  const { segments, backlog } = await recover(dir, storePos, onError);
  const last = segments[segments.length - 1];
  const active = last ? await ActiveSegment.reopen(last) : await ActiveSegment.create(dir, storePos);
  if (!last) segments.push(active.segment);
  const wal = new WalImpl(opts, onError, dir, segments, active, storePos, backlog);
  // DESIGN §1: "On start, the WAL is replayed past the checkpoint" — before the first append is taken.
  await wal.flush();
  return wal;
}

/**
 * Scans the segments: deletes those the store has passed, cuts a torn tail off the last one, and lists
 * every record past `storePos` (not decoded: the drain reads them back in order).
 */
async function recover(dir: string, storePos: bigint, onError: (e: unknown) => void): Promise<{ segments: Segment[]; backlog: Queued[] }> {
  const all = await listSegments(dir);
  const segments: Segment[] = [];
  const backlog: Queued[] = [];
  for (const [i, seg] of all.entries()) {
    const isLast = i === all.length - 1;
    if (!isLast && segmentEnd(seg) <= storePos) {
      await fs.unlink(seg.path);
      continue;
    }
    const { records, validEnd } = scanRecords(await fs.readFile(seg.path));
    if (validEnd < seg.size) {
      // Only the tail can be torn (records are acked after fsync, in order); elsewhere it is damage.
      onError(new Error(`wal: ${seg.path}: ${seg.size - validEnd} bytes after offset ${validEnd} are ${isLast ? 'a torn tail, cut off' : 'corrupt, skipped'}`));
      seg.size = validEnd;
    }
    if (isLast && segmentEnd(seg) < storePos) {
      // The store is ahead of the log (the log was lost or cut): start afresh at the store's position.
      await fs.unlink(seg.path);
      continue;
    }
    const prev = segments[segments.length - 1];
    const expected = prev ? segmentEnd(prev) : storePos;
    if (seg.start > expected) onError(new Error(`wal: positions ${expected}..${seg.start} are missing`));
    for (const r of records) {
      const end = seg.start + BigInt(r.end);
      if (end <= storePos) continue;
      if (seg.start + BigInt(r.start) < storePos) throw new Error(`wal: store position ${storePos} is inside a record of ${seg.path}`);
      backlog.push({ end, bytes: r.end - r.start, rows: r.rows, readyAt: 0 });
    }
    segments.push(seg);
  }
  return { segments, backlog };
}

interface Pending {
  rec: RecordPieces;
  tb: TenantBatch | undefined;
  rows: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

class WalImpl implements Wal {
  private readonly drain: Drain;
  private readonly segmentBytes: number;
  private readonly memoryCap: number;
  /** The store takes framed records and decodes them itself (WalTarget.writeRecords): hold bytes, not batches. */
  private readonly storeDecodes: boolean;
  private pending: Pending[] = [];
  private committing = false;
  /** Set when a write or fsync failed: the file's state is unknown, so no later append may be acked. */
  private broken: unknown = undefined;
  private closing = false;
  private acked: bigint;
  private inMemory = 0;
  /** Settles once the last write made has been handed to the store (writeEntries). */
  private handOvers: Promise<void> = Promise.resolve();
  private lastAppend: Promise<void> = Promise.resolve();
  private readonly replayedRecords: number;
  private readonly counts = { appendedBytes: 0, appendedRecords: 0, unflushedBytes: 0, unflushedRecords: 0, fsyncs: 0, lastFsyncRecords: 0 };
  private readonly room: RoomWaiters;
  private roomWaits = true;

  constructor(
    private readonly opts: WalOptions,
    private readonly onError: (e: unknown) => void,
    private readonly dir: string,
    private readonly segments: Segment[],
    private active: ActiveSegment,
    storePos: bigint,
    backlog: Queued[],
  ) {
    this.segmentBytes = opts.segmentBytes ?? 64 * MIB;
    this.memoryCap = opts.memoryBytes ?? 64 * MIB;
    this.storeDecodes = typeof opts.store.writeRecords === 'function';
    this.acked = segmentEnd(active.segment);
    this.drain = new Drain({
      committed: storePos, batchRows: opts.batchRows ?? 245_760, rowGroupRows: opts.rowGroupRows ?? 122_880, intervalMs: opts.batchIntervalMs ?? 200,
      groupWindowMs: opts.groupWindowMs ?? 1000,
      // A store that takes records checks where each write starts, so the next one may be on its way while the
      // last commits (the DuckDB worker parses one batch while DuckDB commits the one before).
      maxInFlight: this.storeDecodes ? 2 : 1,
      write: (entries, end, from) => this.writeEntries(entries, end, from), committedTo: (end, entries) => this.committedTo(end, entries), onError,
    });
    this.room = new RoomWaiters(() => this.pressure(), () => this.roomWaits && !this.closing && !this.drain.failing, {
      waitMs: opts.roomWaitMs ?? 5000, maxWaitingBytes: opts.maxWaitingBytes ?? opts.maxBytes / 16,
    });
    this.replayedRecords = backlog.length;
    for (const q of backlog) {
      this.counts.unflushedBytes += q.bytes;
      this.counts.unflushedRecords++;
      this.drain.push(q);
    }
  }

  append(tb: TenantBatch, raw?: RawSource): Promise<void> {
    const rows = rowCount(tb);
    return this.enqueue(() => {
      if (raw) return encodeRawRecord(tb.tenantId, raw.format, raw.req, raw.body, rows);
      const buf = encodeRecord(tb);
      return { pieces: [buf], length: buf.length };
    }, tb, rows);
  }

  appendUnparsed(tenantId: string, rows: number, raw: RawSource): Promise<void> {
    return this.enqueue(() => encodeRawRecord(tenantId, raw.format, raw.req, raw.body, rows), undefined, rows);
  }

  private enqueue(encode: () => RecordPieces, tb: TenantBatch | undefined, rows: number): Promise<void> {
    if (this.closing) return Promise.reject(new Error('wal: closed'));
    if (this.broken !== undefined) return Promise.reject(asError(this.broken));
    let rec: RecordPieces;
    try {
      rec = encode();
    } catch (e) {
      return Promise.reject(asError(e));
    }
    this.counts.unflushedBytes += rec.length;
    this.counts.unflushedRecords++;
    const p = new Promise<void>((resolve, reject) => this.pending.push({ rec, tb, rows, resolve, reject }));
    this.lastAppend = p.catch(() => undefined);
    if (!this.committing) void this.commitLoop();
    return p;
  }

  /** Group commit: whatever queued up during the previous fsync goes out in one write+fsync. */
  private async commitLoop(): Promise<void> {
    this.committing = true;
    while (this.pending.length > 0) {
      const group = this.pending;
      this.pending = [];
      let bytes = 0;
      for (const g of group) bytes += g.rec.length;
      try {
        const size = this.active.segment.size;
        if (size > 0 && size + bytes > this.segmentBytes) await this.roll();
        await this.active.append(group.flatMap((g) => g.rec.pieces), bytes);
      } catch (e) {
        this.broken = e;
        this.onError(e);
        for (const g of [...group, ...this.pending.splice(0)]) {
          this.counts.unflushedBytes -= g.rec.length;
          this.counts.unflushedRecords--;
          g.reject(e);
        }
        break;
      }
      Object.assign(this.counts, {
        fsyncs: this.counts.fsyncs + 1, lastFsyncRecords: group.length,
        appendedBytes: this.counts.appendedBytes + bytes, appendedRecords: this.counts.appendedRecords + group.length,
      });
      const readyAt = performance.now();
      for (const g of group) {
        this.acked += BigInt(g.rec.length);
        const keep = this.inMemory + g.rec.length <= this.memoryCap;
        if (keep) this.inMemory += g.rec.length;
        // A store that decodes records itself gets the bytes; any other gets the batch already parsed.
        const held = !keep ? {} : this.storeDecodes || g.tb === undefined ? { rec: g.rec.pieces } : { tb: g.tb };
        this.drain.push({ ...held, end: this.acked, bytes: g.rec.length, rows: g.rows, readyAt });
        g.resolve();
      }
    }
    this.committing = false;
  }

  private async roll(): Promise<void> {
    const start = segmentEnd(this.active.segment);
    await this.active.close();
    this.active = await ActiveSegment.create(this.dir, start);
    this.segments.push(this.active.segment);
  }

  /** Stores `entries` through `end`: as bytes to a store that decodes records itself, else as batches. */
  private async writeEntries(entries: Queued[], end: bigint, from: bigint): Promise<void> {
    const store = this.opts.store;
    if (store.writeRecords === undefined) {
      await store.write(await this.load(entries), end);
      return;
    }
    const writeRecords = store.writeRecords.bind(store);
    // Two writes may be in flight (Drain.maxInFlight), and the store takes them in the order they reach it, refusing
    // one that does not start where it is. A write whose records are read back from their segment is ready later than
    // one made after it from records held in memory (under a backlog past the memory cap, records that came while it
    // was full are on disk, and those that came once a write had taken the held ones out are in memory): handed over
    // when ready, the second reached the store first and was refused, and the drain backed off, answering 429s
    // meanwhile. So each write is handed over only after the one made before it; its records are read meanwhile.
    const parts = this.recordParts(entries);
    parts.catch(() => undefined); // a failed read fails this write below, when its turn comes, not the process now
    const handedOver = this.handOvers.then(() => parts).then((ready) => ({ stored: writeRecords(ready, end, from) }));
    this.handOvers = handedOver.then(() => undefined, () => undefined);
    await (await handedOver).stored;
  }

  /** The batches of `entries`, decoding those not held in memory from their segments. */
  private async load(entries: Queued[]): Promise<TenantBatch[]> {
    const out: TenantBatch[] = [];
    await this.walk(entries, async (q) => {
      if (q.tb !== undefined) out.push(q.tb);
      // A record held as bytes (its body was counted, not parsed) is parsed here, as a read-back one would be.
      else if (q.rec !== undefined) out.push(await decodeAnyPayload(Buffer.concat(q.rec).subarray(RECORD_HEADER_BYTES), replayFormats));
      else throw new Error('wal: a held record has neither batch nor bytes');
    }, async (records) => {
      let rows = 0;
      for (const r of records) {
        out.push(await decodeAnyPayload(r.payload, replayFormats));
        rows += r.rows;
        if (rows >= DECODE_ROWS_PER_YIELD) {
          rows = 0;
          await yieldToLoop();
        }
      }
    });
    return out;
  }

  /**
   * The framed records of `entries` as the store takes them (RecordParts): nothing is copied, and the pieces held in
   * memory are given up to the store, which may take them by transfer (issue 12 item 1: bytes, not cloned objects).
   * A retry of the write reads those records back from their segment.
   */
  private async recordParts(entries: Queued[]): Promise<RecordParts> {
    const parts: RecordParts = [];
    await this.walk(entries, (q) => {
      if (q.rec === undefined) throw new Error('wal: a held record has no bytes');
      parts.push(q.rec);
      q.rec = undefined;
      this.inMemory -= q.bytes;
    }, (_records, framed) => {
      parts.push([framed]);
      return Promise.resolve();
    });
    return parts;
  }

  /**
   * Walks `entries` in order: `held` for each one kept in memory, `readBack` for each run of the others, read from
   * its segment in one piece (the records checked against their CRCs, and their count against the run's).
   */
  private async walk(
    entries: Queued[], held: (q: Queued) => void | Promise<void>, readBack: (records: FramedRecord[], framed: Buffer) => Promise<void>,
  ): Promise<void> {
    const isHeld = (q: Queued | undefined): boolean => q !== undefined && (q.tb !== undefined || q.rec !== undefined);
    let i = 0;
    while (i < entries.length) {
      const q = entries[i] as Queued;
      if (isHeld(q)) {
        await held(q);
        i++;
        continue;
      }
      const start = q.end - BigInt(q.bytes);
      const seg = this.segments.find((s) => s.start <= start && start < segmentEnd(s));
      if (seg === undefined) throw new Error(`wal: no segment holds position ${start}`);
      let j = i;
      while (j < entries.length && !isHeld(entries[j]) && (entries[j] as Queued).end <= segmentEnd(seg)) j++;
      const to = (entries[j - 1] as Queued).end;
      const framed = await readSegmentRange(seg.path, Number(start - seg.start), Number(to - seg.start));
      const { records } = scanRecords(framed);
      if (records.length !== j - i) throw new Error(`wal: ${seg.path} does not hold the records it did on open`);
      await readBack(records, framed);
      i = j;
    }
  }

  /** The store has committed through `end`: release the accounting and delete segments wholly behind it. */
  private async committedTo(end: bigint, entries: Queued[]): Promise<void> {
    for (const q of entries) {
      this.counts.unflushedBytes -= q.bytes;
      this.counts.unflushedRecords--;
      if (q.tb !== undefined || q.rec !== undefined) this.inMemory -= q.bytes;
    }
    this.room.wake();
    while (this.segments.length > 1 && this.segments[0] && segmentEnd(this.segments[0]) <= end) {
      const seg = this.segments.shift() as Segment;
      await fs.unlink(seg.path);
    }
  }

  pressure(): WalPressure {
    // DESIGN §1: wal_full past the size limit; backpressure past a lower watermark or while the store fails.
    const unflushed = this.counts.unflushedBytes;
    if (unflushed > this.opts.maxBytes) return 'wal_full';
    if (this.drain.failing || unflushed > this.opts.maxBytes / 4) return 'backpressure';
    return 'ok';
  }

  waitForRoom(bytes: number): Promise<WalPressure> {
    return this.room.waitFor(bytes);
  }

  endRoomWaits(): void {
    this.roomWaits = false;
    this.room.wake();
  }

  async flush(): Promise<void> {
    await this.lastAppend;
    await this.drain.waitCommitted(this.acked);
  }

  async close(opts: { drainForMs?: number } = {}): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.room.wake();
    await this.lastAppend;
    await this.drain.stop(opts.drainForMs ?? Infinity);
    await this.active.close();
  }

  stats(): WalStats {
    return {
      ...this.counts, position: this.acked, committedPosition: this.drain.committed, storeFailures: this.drain.failures,
      replayedRecords: this.replayedRecords,
    };
  }
}
