// POST /api/v1/syslog: RFC 5424 / RFC 3164 messages, octet-counted or LF/NUL framed (wire-formats.md §3.5).
// Parsing lives in syslog-parse.ts, shared with the Heroku drain; field names are documented there.
import type { IngestFormat } from '../format.js';
import { frameText, parseSyslogLine, splitFrames, syslogToEntry } from './syslog-parse.js';

export const syslogFormat: IngestFormat = {
  name: 'syslog',
  parse(body, req) {
    const logs = [];
    for (const frame of splitFrames(body)) {
      const line = frameText(frame);
      if (line.trim() === '') continue;
      logs.push(syslogToEntry(parseSyslogLine(line, { nowNs: req.nowNs }), req.nowNs));
    }
    return { batch: { logs, spans: [] }, signal: 'logs' };
  },
};
