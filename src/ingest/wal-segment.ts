// WAL segment files: `<dataDir>/wal/<start>.wal`, where <start> is the global byte offset (the WAL
// position) of the segment's first byte, zero-padded so that names sort in position order. Positions run
// on across segments, so a position alone says where a record lives (DESIGN §1, "replayed past the
// checkpoint").
import { promises as fs } from 'node:fs';
import { join } from 'node:path';

const NAME = /^(\d{20})\.wal$/;

export interface Segment {
  /** WAL position of the segment's first byte. */
  start: bigint;
  path: string;
  /** Bytes of whole records in it (after a torn tail is cut off). */
  size: number;
}

export function segmentEnd(s: Segment): bigint {
  return s.start + BigInt(s.size);
}

export function segmentPath(dir: string, start: bigint): string {
  return join(dir, `${start.toString().padStart(20, '0')}.wal`);
}

/** The segments in `dir`, oldest first, with their sizes on disk. */
export async function listSegments(dir: string): Promise<Segment[]> {
  const out: Segment[] = [];
  for (const name of await fs.readdir(dir)) {
    const m = NAME.exec(name);
    if (!m?.[1]) continue;
    const path = join(dir, name);
    out.push({ start: BigInt(m[1]), path, size: (await fs.stat(path)).size });
  }
  return out.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
}

/** Makes a created or removed directory entry durable: without it a power cut can forget a new segment. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** The segment being appended to. Writes land at explicit offsets; `datasync` makes them durable. */
export class ActiveSegment {
  private constructor(readonly segment: Segment, private readonly fh: fs.FileHandle) {}

  /** Opens `segment` for appending after its `size` bytes, cutting off anything beyond (a torn tail). */
  static async reopen(segment: Segment): Promise<ActiveSegment> {
    const fh = await fs.open(segment.path, 'r+');
    try {
      const st = await fh.stat();
      if (st.size !== segment.size) {
        await fh.truncate(segment.size);
        await fh.datasync();
      }
    } catch (e) {
      await fh.close();
      throw e;
    }
    return new ActiveSegment(segment, fh);
  }

  static async create(dir: string, start: bigint): Promise<ActiveSegment> {
    const path = segmentPath(dir, start);
    // 'w', not 'wx': a leftover file at this position holds nothing committed-but-unreplayed (open()
    // deletes or reopens every segment before creating one), so starting it afresh is right.
    const fh = await fs.open(path, 'w');
    await syncDir(dir);
    return new ActiveSegment({ start, path, size: 0 }, fh);
  }

  /**
   * Writes `pieces` (`bytes` in all) after the last record and fsyncs (DESIGN §1: the ack waits for this). One
   * gathered write: the pieces (record headers, request bodies) are not first copied into one buffer.
   */
  async append(pieces: Buffer[], bytes: number): Promise<void> {
    const { bytesWritten } = await this.fh.writev(pieces, this.segment.size);
    if (bytesWritten < bytes) {
      // A short gathered write (rare: a signal, a full disk that recovers): write what is left as one buffer.
      const rest = Buffer.concat(pieces, bytes).subarray(bytesWritten);
      let done = 0;
      while (done < rest.length) {
        const r = await this.fh.write(rest, done, rest.length - done, this.segment.size + bytesWritten + done);
        done += r.bytesWritten;
      }
    }
    await this.fh.datasync();
    this.segment.size += bytes;
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}

/** Reads bytes [from, to) of a segment: the drain's path for records no longer held in memory. */
export async function readSegmentRange(path: string, from: number, to: number): Promise<Buffer> {
  const fh = await fs.open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(to - from);
    let done = 0;
    while (done < buf.length) {
      const { bytesRead } = await fh.read(buf, done, buf.length - done, from + done);
      if (bytesRead === 0) throw new Error(`wal: ${path} ends before byte ${to}`);
      done += bytesRead;
    }
    return buf;
  } finally {
    await fh.close();
  }
}
