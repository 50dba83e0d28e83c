// Which promoted field columns (field-columns.ts) the reads compile against and the writer may fill. A read compiles
// its SQL against the columns known when it starts; a column added by a write becomes known when that write commits.
// A read compiled before then looks for the key in `fields` only, so it would miss rows holding the key in the new
// column: the writer therefore leaves a new column empty (the key stays in the JSON, which every read finds) until
// every read compiled before the column existed has finished. Reads never wait; the writer never waits either — it
// just keeps writing the JSON a little longer.
import type { SqlDialect } from '../sql/dialect.js';
import { duckdbDialect } from './duckdb-dialect.js';
import type { FieldColumn } from './field-columns.js';

/** The columns a read compiles against, and their dialect. */
export interface FieldSnapshot {
  readonly epoch: number;
  readonly columns: readonly FieldColumn[];
  readonly dialect: SqlDialect;
}

export class FieldLayout {
  private snapshot: FieldSnapshot;
  /** How many of the columns (a prefix: columns are only appended) the writer fills. */
  private writable: number;
  /** Reads still running, by the epoch they compiled against. */
  private readonly running = new Map<number, number>();

  constructor(columns: readonly FieldColumn[]) {
    // At open no read has run yet: every stored column is writable at once.
    this.snapshot = { epoch: 0, columns, dialect: duckdbDialect(columns) };
    this.writable = columns.length;
  }

  get columns(): readonly FieldColumn[] {
    return this.snapshot.columns;
  }

  /** Runs a read against the current columns; it counts as running until its promise settles. */
  async read<T>(fn: (s: FieldSnapshot) => Promise<T>): Promise<T> {
    const s = this.snapshot;
    this.running.set(s.epoch, (this.running.get(s.epoch) ?? 0) + 1);
    try {
      return await fn(s);
    } finally {
      const left = (this.running.get(s.epoch) ?? 1) - 1;
      if (left === 0) this.running.delete(s.epoch);
      else this.running.set(s.epoch, left);
    }
  }

  /** After the commit that added columns: reads from now on know them. */
  publish(columns: readonly FieldColumn[]): void {
    this.snapshot = { epoch: this.snapshot.epoch + 1, columns, dialect: duckdbDialect(columns) };
  }

  /** The columns the writer fills now (the others it leaves NULL). */
  writableColumns(): readonly FieldColumn[] {
    const { epoch, columns } = this.snapshot;
    if (this.writable < columns.length && ![...this.running.keys()].some((e) => e < epoch)) this.writable = columns.length;
    return columns.slice(0, this.writable);
  }
}
