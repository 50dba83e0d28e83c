// POST /api/v1/ingest: the spec's native JSON array / NDJSON (wire-formats.md §3.1).
import type { IngestFormat } from '../format.js';
import { NativeCountAhead, countNative, nativeLogWindows, parseNative } from './native.js';

export const nativeFormat: IngestFormat = {
  name: 'native',
  walKey: 'native',
  parse: (body, req) => ({ batch: parseNative(body, req.nowNs), signal: 'logs' }),
  count(body, req, ahead) {
    const entries = countNative(body, req.nowNs, ahead);
    return { entries, rows: entries, signal: 'logs' };
  },
  countAhead: () => new NativeCountAhead(),
  logWindows: (body, req, _rows, onBadEntry) => nativeLogWindows(body, req.nowNs, onBadEntry),
};
