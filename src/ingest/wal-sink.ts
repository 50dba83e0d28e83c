// The pipeline's durable sink over the WAL: refuse when the WAL is full or the store is behind
// (DESIGN §1: wal_full / backpressure), else append and resolve after fsync.
import type { DurableSink } from './pipeline.js';
import type { Wal } from './wal.js';
import { errors } from '../errors.js';

export function walSink(wal: Wal): DurableSink {
  return {
    checkPressure() {
      const p = wal.pressure();
      if (p === 'wal_full') throw errors.walFull();
      if (p === 'backpressure') throw errors.backpressure();
    },
    append(tenantId, format, parsed, source) {
      const tb = { tenantId, format: format.name, batch: parsed.batch };
      const walKey = format.walKey;
      return walKey === undefined ? wal.append(tb) : wal.append(tb, { format: { ...format, walKey }, req: source.req, body: source.body });
    },
  };
}
