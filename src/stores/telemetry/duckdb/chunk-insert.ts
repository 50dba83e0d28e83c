// A write's log chunks handed to DuckDB through a table function, `INSERT INTO logs SELECT * FROM <it>`, in place of
// an appender (issue 12 item 1). With an appender, DuckDB's side of every append runs on the store worker's JS thread
// (appendDataChunk copies the chunk into the appender's collection and from there into the table: string heaps,
// statistics, ~1.1 µs a row of the bench's NDJSON), and that thread is the one serial path of a sustained load (the
// README's "Where the sustained rate goes now"). An INSERT runs on a libuv thread; its scan calls the table function,
// which node-bindings runs on this JS thread between its other tasks, and which hands over a chunk the JS built while
// DuckDB inserted the one before. In-process, for writes of 245,760 bench rows to a file, the JS thread's time fell
// from 990-1,510 to 730-1,290 ms a write, the process's CPU staying about the same.
//
// Chunks cross by copy (chunk-writer.ts copyChunk): the numbers and string_t's of a chunk, each long string's bytes
// left in the built chunk's heap, which is held until DuckDB asks for the next chunk (by then the insert has copied
// the strings into the table's storage: the scan is one thread, DuckDB's default for a table function).
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import duckdb from '@duckdb/node-bindings';
import { DuckDBTableFunction, type DuckDBConnection, type DuckDBDataChunk } from '@duckdb/node-api';
import type { PreparedChunks } from './chunks-ahead.js';
import { copyChunk, recycleChunk, type ColumnKind } from './chunk-writer.js';

/** A column the chunks fill, in order: its name in the table, and its kind as the chunks have it. */
export interface InsertColumn {
  readonly name: string;
  readonly kind: ColumnKind;
  /** A JSON column: declared JSON (an alias of VARCHAR), so that DuckDB inserts it as is, with no cast that checks it. */
  readonly json?: boolean;
}

/** The table function's name on the writer's connection; nothing else calls it. */
const FUNCTION = 'sightline_write_chunks';
/** Chunks built ahead of DuckDB's asking while the insert runs (a chunk is ~5-10 ms of building). */
const MAX_QUEUED = 16;

interface Feed {
  readonly columns: readonly InsertColumn[];
  /** Built and not yet handed over, in order; then the rest, built as they are asked for. */
  readonly queue: DuckDBDataChunk[];
  readonly rest: Generator<DuckDBDataChunk, void>;
  done: boolean;
  /** The chunk handed over last, whose string heap the insert may still read. */
  held: DuckDBDataChunk | null;
  /** What building threw: the insert fails with it. */
  failure: { error: unknown } | null;
  /** Resolves the producer's wait for room in the queue. */
  wake: (() => void) | null;
}

const TYPE_IDS: Record<ColumnKind, duckdb.Type> = {
  varchar: duckdb.Type.VARCHAR, bigint: duckdb.Type.BIGINT, uuid: duckdb.Type.UUID, double: duckdb.Type.DOUBLE,
  boolean: duckdb.Type.BOOLEAN,
};

function logicalType(column: InsertColumn): duckdb.LogicalType {
  const logical = duckdb.create_logical_type(TYPE_IDS[column.kind]);
  if (column.json === true) duckdb.logical_type_set_alias(logical, 'JSON');
  return logical;
}

/** The chunks of one write at a time into a table of the writer's connection, inside its open transaction. */
export class ChunkInserter {
  private feed: Feed | null = null;

  /** Registers the table function on `writer`, the connection every insert() runs on. */
  constructor(writer: DuckDBConnection) {
    writer.registerTableFunction(DuckDBTableFunction.create({
      name: FUNCTION,
      bindFunction: (info) => {
        const feed = this.feed;
        if (feed === null) {
          info.setError(`${FUNCTION}: no write is being inserted`);
          return;
        }
        // The raw bind info: node-api's addResultColumn takes no type alias (JSON).
        const raw = (info as unknown as { bind_info: duckdb.TableFunctionBindInfo }).bind_info;
        for (const column of feed.columns) duckdb.bind_add_result_column(raw, column.name, logicalType(column));
      },
      initFunction: () => undefined,
      mainFunction: (_info, out) => { this.next(out); },
    }));
  }

  /**
   * Inserts `chunks` (the built ones, then the rest as built) into `table`'s `columns` on `c`, the connection the
   * function is registered on, with its transaction open. Resolves once DuckDB has every row; every chunk is recycled.
   */
  async insert(c: DuckDBConnection, table: string, columns: readonly InsertColumn[], chunks: PreparedChunks): Promise<void> {
    if (this.feed !== null) throw new Error(`${FUNCTION}: one insert at a time`);
    const feed: Feed = { columns, queue: chunks.built, rest: chunks.rest, done: false, held: null, failure: null, wake: null };
    this.feed = feed;
    let inserting = true;
    const produced = this.produce(feed, () => inserting);
    try {
      const names = columns.map((col) => `"${col.name}"`).join(', ');
      await c.run(`INSERT INTO ${table} (${names}) SELECT * FROM ${FUNCTION}()`);
    } finally {
      inserting = false;
      feed.wake?.();
      await produced;
      this.feed = null;
      if (feed.held !== null) recycleChunk(feed.held);
      for (const chunk of feed.queue) recycleChunk(chunk);
      feed.queue.length = 0;
      feed.rest.return();
    }
  }

  /** Builds chunks ahead of DuckDB's asking while the insert runs, up to MAX_QUEUED, yielding after each. */
  private async produce(feed: Feed, inserting: () => boolean): Promise<void> {
    while (inserting() && !feed.done && feed.failure === null) {
      if (feed.queue.length >= MAX_QUEUED) {
        await new Promise<void>((resolve) => { feed.wake = resolve; });
        feed.wake = null;
        continue;
      }
      this.build(feed);
      await yieldToLoop();
    }
  }

  /** One more chunk of the rest onto the queue, or the rest marked done, or what building threw kept. */
  private build(feed: Feed): void {
    try {
      const next = feed.rest.next();
      if (next.done === true) feed.done = true;
      else feed.queue.push(next.value);
    } catch (e) {
      feed.failure = { error: e };
    }
  }

  /** The table function's scan: the next chunk into DuckDB's `out`, or none (0 rows) once every chunk is in. */
  private next(out: DuckDBDataChunk): void {
    const feed = this.feed;
    if (feed === null) {
      out.rowCount = 0;
      return;
    }
    if (feed.held !== null) recycleChunk(feed.held); // DuckDB asks for the next chunk only once done with the last
    feed.held = null;
    if (feed.queue.length === 0 && !feed.done && feed.failure === null) this.build(feed);
    if (feed.failure !== null) throw feed.failure.error instanceof Error ? feed.failure.error : new Error(String(feed.failure.error));
    const chunk = feed.queue.shift();
    feed.wake?.();
    if (chunk === undefined) {
      out.rowCount = 0;
      return;
    }
    copyChunk(chunk, out.chunk);
    feed.held = chunk;
  }
}
