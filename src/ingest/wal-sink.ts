// The pipeline's durable sink over the WAL: refuse when the WAL is full or the store is behind
// (DESIGN §1: wal_full / backpressure; past the watermark after a bounded wait, wal-room.ts), else append and
// resolve after fsync.
import type { DurableSink } from './pipeline.js';
import type { Wal } from './wal.js';
import { errors } from '../errors.js';

export function walSink(wal: Wal): DurableSink {
  return {
    async checkPressure(bytes) {
      const p = await wal.waitForRoom(bytes);
      if (p === 'wal_full') throw errors.walFull();
      if (p === 'backpressure') throw errors.backpressure();
    },
    append(tenantId, format, entries, source) {
      const walKey = format.walKey;
      const raw = walKey === undefined ? undefined : { format: { ...format, walKey }, req: source.req, body: source.body };
      if (entries.batch !== undefined) return wal.append({ tenantId, format: format.name, batch: entries.batch }, raw);
      if (raw === undefined) return Promise.reject(new Error(`wal: format ${format.name} counted a body it cannot be stored from`));
      return wal.appendUnparsed(tenantId, entries.rows, raw);
    },
  };
}
