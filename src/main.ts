#!/usr/bin/env node
// Entry point. libuv's thread pool (4 threads by default) carries the WAL's writes and fsyncs and DuckDB's
// and PGlite's file work together; it is sized before anything can start it, then the CLI loads.
import { setFlagsFromString } from 'node:v8';

process.env.UV_THREADPOOL_SIZE ??= '16';
// V8 counts the bytes of ArrayBuffers allocated since the last full GC against the old generation's limit, which it
// sets at about twice the live heap. The request thread holds a small live heap (~24 MB) but takes request bodies
// of ~100 MB/s, so it ran ~4 full GCs a second that freed nothing (24.7 → 24.4 MB), each marked on every core.
// Letting the heap grow to four times its live size before the next one: 82-90 → 17-19 full GCs on the request
// thread over the same NDJSON load, 1-1.5 µs less CPU per entry over all threads (issue 12 item 1). The limit the
// heap may reach (--max-old-space-size) is unchanged; the flag is read at each GC, so setting it here takes effect.
setFlagsFromString('--heap-growing-percent=300');
await import('./cli.js');
