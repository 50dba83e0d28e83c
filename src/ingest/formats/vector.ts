// POST /api/v1/vector: Vector's `http` sink (wire-formats.md §3.9). `codec = "json"` sends a JSON array
// of log events, `framing.method = "newline_delimited"` NDJSON, and `codec = "text"` bare message lines.
import type { IngestFormat } from '../format.js';
import type { LogEntry } from '../../model/log-entry.js';
import { bodyText, firstByte, makeEntry, parseJsonRecords, flatten, recordToEntry } from './shipper-records.js';

/** A Vector log event: `message`, `timestamp`, `host`, `source_type`, `file`, `kubernetes.*`, `stream`, … */
const VECTOR_KEYS = {
  msg: ['message', '_msg', 'msg', 'log'],
  time: ['timestamp', '@timestamp', '_time', 'time'],
  service: ['service', 'service.name'],
  // `appname` is what Vector's syslog source names the APP-NAME.
  serviceHints: ['appname', 'kubernetes.container_name', 'container_name'],
  severity: ['level', 'severity', 'log.level'],
} as const;

function textLines(text: string, nowNs: bigint): LogEntry[] {
  return text.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '')
    .map((msg) => makeEntry({ timeNs: nowNs, observedNs: nowNs, msg }));
}

export const vectorFormat: IngestFormat = {
  name: 'vector',
  parse(body, req) {
    const text = bodyText(body);
    const first = firstByte(body);
    const logs = first === undefined || first === 0x5b || first === 0x7b
      ? parseJsonRecords(text, 'Vector').map((r) => recordToEntry(flatten(r), VECTOR_KEYS, req.nowNs))
      : textLines(text, req.nowNs);
    return { batch: { logs, spans: [] }, signal: 'logs' };
  },
};
