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
// DuckDB allocates through the jemalloc it bundles, which it tells to give freed pages back to the system after a
// second (`dirty_decay_ms:1000,muzzy_decay_ms:1000`). A write of the bench's loads lands every ~2 s and takes a few
// hundred MB, so every write's memory came back from the system page by page: ~0.11 page faults per stored entry on
// the store worker, at ~17 µs a fault on the 2-core VM the bench runs on. Kept for 30 s instead: 0.108 → 0.017 faults
// an entry on that thread, ~1.4 µs less of its CPU per entry (issue 12 item 1); the price is that memory DuckDB frees
// stays in the process's RSS longer. jemalloc reads this variable (named for DuckDB's symbol prefix) when DuckDB first
// allocates, after this line; a value the operator set is kept.
process.env.DUCKDB_JE_MALLOC_CONF ??= 'dirty_decay_ms:30000,muzzy_decay_ms:30000';
await import('./cli.js');
