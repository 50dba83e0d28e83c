// Exactly once without transactions (DESIGN §10, issue 11 item 4). ClickHouse cannot commit rows and the WAL position
// together, so a write is made repeatable instead:
//
// 1. An intent is recorded first: the write starts at the committed position C, ends at P, and holds n WAL records.
// 2. Each table gets one insert whose `insert_deduplication_token` is (writer, P, table, part): the engine drops a
//    repeat of it (`non_replicated_deduplication_window`, schema.ts).
// 3. P is recorded as done.
//
// A crash (or a failed insert) anywhere before 3 leaves C as the position, and the WAL replays from C. The replayed
// write starts at the same record, but the drain may batch more records into it than before (more were acked since).
// So when an intent starting at C is pending, its n records — the first n of the new write, in WAL order — are
// written again under the intent's own tokens (the engine drops what already went in; what did not goes in now), P is
// recorded, and only the rest is written as a new write. Replaying never needs fewer records than the intent held:
// the drain takes records greedily from C up to the same row budget, and the backlog holds all of them.
//
// `writer` names the WAL: processes sharing one ClickHouse (split roles) each have their own WAL and positions, so
// positions and tokens are kept apart per writer.
import type { TenantBatch } from '../../../model/batch.js';
import type { ChExecutor } from './executor.js';
import { big, num } from './values.js';

export interface TableRows {
  table: string;
  rows: Record<string, unknown>[];
}

/** Every table's rows of some batches, in a fixed table order. */
export type RowsOf = (batches: readonly TenantBatch[]) => TableRows[];

interface Intent {
  start: bigint;
  end: bigint;
  records: number;
}

export class WalCheckpoint {
  /** The done position, once read: this process is the only writer under its writer id. */
  private committed: bigint | undefined;

  constructor(private readonly exec: ChExecutor, private readonly writer: string, private readonly rowsOf: RowsOf) {}

  async position(): Promise<bigint> {
    if (this.committed === undefined) {
      const rows = await this.exec.query(
        `SELECT toString(max(end_pos)) AS p FROM wal_state WHERE writer = {writer:String} AND slot = 'done'`, { writer: this.writer });
      this.committed = big(rows[0]?.p);
    }
    return this.committed;
  }

  async write(batches: readonly TenantBatch[], walPosition: bigint): Promise<void> {
    let from = await this.position();
    // A position the store already holds means these records are in it (a retry, or a replay of one).
    if (walPosition <= from) return;
    let rest = batches;
    const pending = await this.pendingIntent(from);
    if (pending && pending.end !== walPosition) {
      if (pending.end > walPosition || pending.records > batches.length) {
        throw new Error(`clickhouse-store: the write ${from}..${walPosition} of ${batches.length} records is inside the ` +
          `unfinished write ${from}..${pending.end} of ${pending.records}; the WAL must replay at least that write whole`);
      }
      await this.insertAll(batches.slice(0, pending.records), pending.end);
      await this.markDone(pending);
      from = pending.end;
      rest = batches.slice(pending.records);
    }
    const intent: Intent = { start: from, end: walPosition, records: rest.length };
    await this.exec.insert('wal_state', [stateRow(this.writer, 'intent', intent)]);
    await this.insertAll(rest, walPosition);
    await this.markDone(intent);
  }

  /** The intent of the last write if it starts at `from` and never finished. */
  private async pendingIntent(from: bigint): Promise<Intent | undefined> {
    const rows = await this.exec.query(
      `SELECT toString(start_pos) AS s, toString(end_pos) AS e, records FROM wal_state FINAL
       WHERE writer = {writer:String} AND slot = 'intent'`, { writer: this.writer });
    const r = rows[0];
    if (r === undefined) return undefined;
    const intent = { start: big(r.s), end: big(r.e), records: num(r.records) };
    return intent.start === from && intent.end > from ? intent : undefined;
  }

  private async insertAll(batches: readonly TenantBatch[], end: bigint): Promise<void> {
    for (const { table, rows } of this.rowsOf(batches)) {
      // One insert per table per write (clickhouse.md "Inserts": few, large inserts); part 0 of it.
      await this.exec.insert(table, rows, { dedupToken: `wal:${this.writer}:${end}:${table}:0` });
    }
  }

  private async markDone(w: Intent): Promise<void> {
    await this.exec.insert('wal_state', [stateRow(this.writer, 'done', w)]);
    this.committed = w.end;
  }
}

function stateRow(writer: string, slot: 'intent' | 'done', w: Intent): Record<string, unknown> {
  return { writer, slot, start_pos: w.start.toString(), end_pos: w.end.toString(), records: w.records };
}
