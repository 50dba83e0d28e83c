#!/usr/bin/env node
// Entry point. libuv's thread pool (4 threads by default) carries the WAL's writes and fsyncs and DuckDB's
// and PGlite's file work together; it is sized before anything can start it, then the CLI loads.
process.env.UV_THREADPOOL_SIZE ??= '16';
await import('./cli.js');
