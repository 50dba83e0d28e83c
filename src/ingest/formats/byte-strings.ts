// Short strings that come again and again in the bodies a reader walks — OTLP attribute keys, a native line's service
// and level — made once and then found by their bytes (issue 12 items 1 and 2). Decoding each again made a new string
// every time: a native call, a young object for the garbage collector, and a hash for V8 to compute again wherever
// the string is looked up (the stream of a service, the chunk writer's repeats). Found here, the same string comes
// back with its hash already kept.

interface Cached {
  readonly bytes: Uint8Array;
  readonly text: string;
}

export class ByteStrings {
  /** One string per hash: a collision replaces the one before (both are still right, only one is kept). */
  private readonly byHash = new Map<number, Cached>();

  /**
   * Strings of 1 to `maxBytes` bytes are kept, at most `maxCount` of them (then the cache starts again), decoded as
   * `encoding` (latin1 for bytes known to be ASCII, where it is UTF-8's answer and cheaper).
   */
  constructor(private readonly maxBytes: number, private readonly maxCount: number, private readonly encoding: 'utf8' | 'latin1') {}

  /** `buf[start, end)` as a string. */
  text(buf: Buffer, start: number, end: number): string {
    const length = end - start;
    if (length > this.maxBytes || length <= 0) return buf.toString(this.encoding, start, end);
    let hash = length;
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ (buf[i] ?? 0), 0x01000193);
    const cached = this.byHash.get(hash);
    if (cached !== undefined && holds(cached.bytes, buf, start, end)) return cached.text;
    const text = buf.toString(this.encoding, start, end);
    if (this.byHash.size >= this.maxCount) this.byHash.clear();
    this.byHash.set(hash, { bytes: Uint8Array.prototype.slice.call(buf, start, end), text });
    return text;
  }
}

/** Whether `buf[start, end)` are `bytes`. */
function holds(bytes: Uint8Array, buf: Uint8Array, start: number, end: number): boolean {
  if (bytes.length !== end - start) return false;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== buf[start + i]) return false;
  return true;
}
