// Live tail over the existing tail API (NDJSON kept open). Paused, rows keep arriving but are held back, so
// resuming shows what came meanwhile; the view keeps the newest MAX_ROWS.
import { streamNdjson, tenantPath } from '../../lib/api';
import type { LogRow } from './explore-api';

export const MAX_TAIL_ROWS = 10_000;

export class LiveTail {
  private readonly ctl = new AbortController();
  private held: LogRow[] = [];
  private paused = false;

  constructor(
    tenant: string,
    query: string,
    private readonly onRows: (rows: LogRow[]) => void,
    onEnd: (error: unknown) => void,
  ) {
    let pending: LogRow[] = [];
    let scheduled = false;
    // Rows are handed over at most once a frame, so a burst does not re-render per row.
    const flush = () => {
      scheduled = false;
      const rows = pending;
      pending = [];
      if (this.paused) this.held.push(...rows);
      else this.onRows(rows);
    };
    streamNdjson(tenantPath(tenant, 'select/logsql/tail'), (row) => {
      pending.push(row);
      if (!scheduled) {
        scheduled = true;
        requestAnimationFrame(flush);
      }
    }, { query: { query }, signal: this.ctl.signal }).then(() => onEnd(''), (e: unknown) => onEnd(this.ctl.signal.aborted ? '' : e));
  }

  get heldCount(): number {
    return this.held.length;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    const rows = this.held;
    this.held = [];
    if (rows.length > 0) this.onRows(rows);
  }

  stop(): void {
    this.ctl.abort();
  }
}
