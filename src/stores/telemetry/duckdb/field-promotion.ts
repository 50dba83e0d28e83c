// Which `fields` keys a write promotes to columns of their own (field-columns.ts; issue 12 item 3). A key earns a
// column by recurring: one write carries it in many rows with values of one kind. Promotion is for good (columns are
// never dropped), bounded in number, and skipped on a table too large to alter quickly (field-catalog.ts), so a key
// that does not earn a column simply stays in the JSON, as every key did before.
import { logCount, logSample, type TenantBatch } from '../../../model/batch.js';
import type { FieldValue } from '../../../model/log-entry.js';
import { fits, type FieldKind } from './field-columns.js';

export interface PromotionPolicy {
  /** A key is promoted once one write carries it, with values of one kind, in at least this many rows. */
  minRows: number;
  /** Promoted columns at most: each costs the appender a value or a NULL on every row written. */
  maxColumns: number;
}

export const DEFAULT_PROMOTION: PromotionPolicy = { minRows: 1000, maxColumns: 32 };

/** Rows looked at per write: enough to see a recurring key, few enough that counting costs the drain nothing. */
const SAMPLE_ROWS = 2048;
/** UUID rather than text once nearly all of the key's strings are UUIDs (the others stay in the JSON). */
const UUID_SHARE = 0.9;

interface Seen {
  text: number;
  int: number;
  uuid: number;
}

/** The keys this write should promote (in the order its rows first show them), with their kinds; at most `room`. */
export function keysToPromote(
  batches: readonly TenantBatch[], promoted: ReadonlySet<string>, room: number, policy: PromotionPolicy,
): { key: string; kind: FieldKind }[] {
  if (room <= 0) return [];
  const total = batches.reduce((n, b) => n + logCount(b.batch), 0);
  if (total < policy.minRows) return [];
  const seen = new Map<string, Seen>();
  const look = (fields: Record<string, FieldValue>): void => {
    for (const key of Object.keys(fields)) {
      if (promoted.has(key)) continue;
      let s = seen.get(key);
      if (s === undefined) seen.set(key, (s = { text: 0, int: 0, uuid: 0 }));
      count(s, fields[key] as FieldValue);
    }
  };
  // Every row of a small write; random rows of a large one (random, not every n-th: a fixed stride can beat in
  // step with a pattern in the rows and see a key far more or less often than it is there).
  let sampled = 0;
  // One row of a batch that decodes whole to give any (LogWindows.wholeBodySample) costs as much as all of them: such
  // batches run up what they owe the sample, and one gives many rows whenever the debt passes that many. The random
  // start makes which batches are read random; the sample takes about its share of them all the same. The debt is
  // each batch's share unrounded, so a write of such batches alone owes SAMPLE_ROWS in all and, from a start above 0,
  // always reads one (rounded shares could add up to less: 60 batches' 34 rows made 2,040, and a start under 8 read none).
  let owed = (1 - Math.random()) * SAMPLE_ROWS;
  for (const { batch } of batches) {
    const n = logCount(batch);
    const share = total <= SAMPLE_ROWS ? n : (SAMPLE_ROWS * n) / total;
    let picks = Math.round(share);
    if (batch.logWindows?.wholeBodySample === true && share < n) {
      const many = Math.min(n, SAMPLE_ROWS);
      owed += share;
      picks = owed >= many ? many : 0;
      owed -= picks;
    }
    for (const e of logSample(batch, picks)) {
      look(e.fields);
      sampled++;
    }
  }
  if (sampled === 0) return [];
  const scale = total / sampled;
  const out: { key: string; kind: FieldKind }[] = [];
  for (const [key, s] of seen) {
    const [kind, n] = bestKind(s);
    if (n * scale >= policy.minRows && out.length < room) out.push({ key, kind });
  }
  return out;
}

function count(s: Seen, v: FieldValue): void {
  if (fits('uuid', v)) s.uuid++;
  if (fits('text', v)) s.text++;
  else if (fits('int', v)) s.int++;
}

function bestKind(s: Seen): [FieldKind, number] {
  if (s.uuid > 0 && s.uuid >= UUID_SHARE * s.text) return ['uuid', s.uuid];
  return s.int > s.text ? ['int', s.int] : ['text', s.text];
}
