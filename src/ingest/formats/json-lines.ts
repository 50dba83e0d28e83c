// The request thread's check of a native NDJSON body (issue 12 item 1), in WebAssembly: json-lines.wat walks each
// line with the grammar json-scan.ts walks, and reads the inside of strings 16 bytes at a time. The body goes into the
// module's memory a window at a time, cut after a newline, so that memory stays at one window whatever the body's
// size. On the bench's bodies, one thread: ~455 ns a line against ~1,450 for json-scan.ts's walk over the same lines.
import { JSON_LINES_WASM } from './json-lines-wasm.js';

/** Bytes at the start of the module's memory for the kinds of the open containers (json-lines.wat). */
const STACK_BYTES = 1024;
/** Bytes of body per call: a line longer than this is left to the caller. */
const WINDOW_BYTES = 4 << 20;
/** The sentinel byte after the window, and the 16 a SIMD load may read past it. */
const PAD_BYTES = 32;
const WASM_PAGE = 65_536;

interface JsonLinesModule {
  readonly memory: WebAssembly.Memory;
  readonly countLines: (start: number, stop: number, maxDepth: number) => number;
}

function instantiate(): JsonLinesModule {
  const module = new WebAssembly.Module(Buffer.from(JSON_LINES_WASM, 'base64'));
  const exports = new WebAssembly.Instance(module).exports as unknown as JsonLinesModule;
  const want = STACK_BYTES + WINDOW_BYTES + PAD_BYTES;
  const have = exports.memory.buffer.byteLength;
  if (have < want) exports.memory.grow(Math.ceil((want - have) / WASM_PAGE));
  return exports;
}

let instance: JsonLinesModule | null = null;

/**
 * How many lines of `body[start, end)` are not blank (JSON whitespace only), when each is one JSON object nested less
 * than `maxDepth` deep (a CR before a newline, and whitespace around the object, allowed); -1 when one is not. null
 * when a line is longer than a window (`windowBytes`, for tests), which the caller checks its own way.
 */
export function countJsonLines(body: Buffer, start: number, end: number, maxDepth: number, windowBytes = WINDOW_BYTES): number | null {
  if (maxDepth < 1 || maxDepth > STACK_BYTES) throw new RangeError(`json-lines: maxDepth ${maxDepth} out of range`);
  if (windowBytes < 1 || windowBytes > WINDOW_BYTES) throw new RangeError(`json-lines: windowBytes ${windowBytes} out of range`);
  instance ??= instantiate();
  const { memory, countLines } = instance;
  let count = 0;
  for (let pos = start; pos < end;) {
    let stop = Math.min(end, pos + windowBytes);
    if (stop < end) {
      const newline = body.lastIndexOf(0x0a, stop - 1);
      if (newline < pos) return null;
      stop = newline + 1;
    }
    const bytes = new Uint8Array(memory.buffer); // a view made after instantiate()'s grow, which detaches older ones
    bytes.set(body.subarray(pos, stop), STACK_BYTES);
    const windowEnd = STACK_BYTES + stop - pos;
    bytes[windowEnd] = 0;
    const lines = countLines(STACK_BYTES, windowEnd, maxDepth - 1);
    if (lines < 0) return -1;
    count += lines;
    pos = stop;
  }
  return count;
}
