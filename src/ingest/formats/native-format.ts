// POST /api/v1/ingest: the spec's native JSON array / NDJSON (wire-formats.md §3.1).
import type { IngestFormat } from '../format.js';
import { countNative, nativeLogWindows, parseNative } from './native.js';

export const nativeFormat: IngestFormat = {
  name: 'native',
  walKey: 'native',
  parse: (body, req) => ({ batch: parseNative(body, req.nowNs), signal: 'logs' }),
  count(body, req) {
    const entries = countNative(body, req.nowNs);
    return { entries, rows: entries, signal: 'logs' };
  },
  logWindows: (body, req, _rows, onBadEntry) => nativeLogWindows(body, req.nowNs, onBadEntry),
};
