// Negation in a question (issue 10 item 2: "not from cart", "except payments", "excluding debug"). A negation word
// covers the next filter and any further ones joined to it by a list word: "except cart, payments or api" excludes
// all three, while "except cart from checkout" excludes cart only — the preposition starts a new, positive part.
import type { Ledger } from './tokenizer.js';
import { CONNECTORS, NEGATION_PAIRS, NEGATIONS } from './vocabulary.js';

/** The end of a negation word or two-word phrase at i, or undefined when there is none. */
export function negationAt(l: Ledger, i: number): number | undefined {
  const w = l.word(i);
  if (w === undefined) return undefined;
  const next = l.word(i + 1);
  if (next !== undefined && NEGATION_PAIRS.has(`${w} ${next}`)) return i + 2;
  // "but" alone negates only before a filter ("all logs but debug"); "no" only before one too ("no debug").
  return NEGATIONS.has(w) ? i + 1 : undefined;
}

export function isConnector(l: Ledger, i: number): boolean {
  const t = l.free(i);
  return t !== undefined && (t.kind === 'comma' || CONNECTORS.has(t.lower));
}

/** Tracks whether the next filter is negated, as the reader walks the question left to right. */
export class Negation {
  /** none: positive; pending: a negation word waits for its filter; after: a negated filter just ended. */
  private state: 'none' | 'pending' | 'after' = 'none';

  negate(): void {
    this.state = 'pending';
  }

  /** A filter is read: whether it is negated. */
  take(): boolean {
    if (this.state === 'none') return false;
    this.state = 'after';
    return true;
  }

  /** "and", "or", ",": a negation carries on to the next item of the list. */
  connector(): void {
    if (this.state === 'after') this.state = 'pending';
  }

  /** A preposition or a filler word: it may sit between "not" and its filter, but after one it ends the list. */
  filler(): void {
    if (this.state === 'after') this.state = 'none';
  }

  /** Anything else (a count, a breakdown, a signal word) ends it. */
  reset(): void {
    this.state = 'none';
  }

  get pending(): boolean {
    return this.state === 'pending';
  }
}

/**
 * One reader step over the words that steer negation: a negation word opens the scope, a connector ("and", "or",
 * a comma) carries it on. Returns the index after what it placed, or undefined when word i is neither.
 */
export function negationStep(l: Ledger, i: number, neg: Negation): number | undefined {
  const negEnd = negationAt(l, i);
  if (negEnd !== undefined) {
    l.place(i, negEnd);
    neg.negate();
    return negEnd;
  }
  if (isConnector(l, i)) {
    l.place(i, i + 1);
    neg.connector();
    return i + 1;
  }
  return undefined;
}
