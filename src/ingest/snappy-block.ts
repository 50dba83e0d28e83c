// One snappy block (google/snappy format_description.txt: a varint of the decoded length, then literals and copies),
// wherever a body may be one: the pipeline's `Content-Encoding: snappy` (body.ts, the framing format's compressed
// chunks too), and remote write and Loki pushes that come without the header (wire-formats.md §6). Decoded by the
// `snappy` package (napi-rs, over the Rust `snap` crate), which checks every copy against what is decoded so far and
// the output against the declared length. Each caller checks the declared length against its own cap first, so an
// over-cap block is refused before anything is allocated for it.
import { uncompressSync } from 'snappy';

/** The decoded length a block declares: its leading little-endian base-128 varint (at most 32 bits); null if none. */
export function snappyDeclaredLength(block: Uint8Array): number | null {
  let value = 0;
  for (let i = 0; i < 5 && i < block.length; i++) {
    const byte = block[i] ?? 0;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if (byte < 0x80) return value <= 0xffffffff ? value : null;
  }
  return null;
}

/** The block decoded; throws an Error saying what is wrong with a corrupt one (the caller words the refusal). */
export function uncompressSnappyBlock(block: Uint8Array): Buffer {
  const out = uncompressSync(block);
  if (typeof out === 'string') throw new Error('snappy: decoded to text'); // only with { asBuffer: false }
  return out;
}
