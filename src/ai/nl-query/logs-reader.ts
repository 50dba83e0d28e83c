// Reads a logs question left to right into a LogsIntent (issue 10 item 2): severities, negation, counts and
// breakdowns, top-N, phrases, and the tenant's own fields and values (schema.ts). A word no rule places is left
// unplaced in the ledger, and the question is then refused with it (never guessed).
import type { Clause, LogsIntent } from './logs-intent.js';
import { isConnector, Negation, negationAt, negationStep } from './negation.js';
import { longestMatch, type LogSchema, type ValueRef } from './schema.js';
import type { Ledger } from './tokenizer.js';
import { LOG_WORDS, numberWord, PREPOSITIONS, SEVERITIES, stem, STOP_WORDS } from './vocabulary.js';

const COUNT_PAIRS = new Set(['how many', 'how much', 'number of', 'count of', 'amount of', 'total number', 'volume of']);
const COUNT_WORDS = new Set(['count', 'counts', 'total', 'tally']);
const UNIQ_WORDS = new Set(['distinct', 'unique', 'different']);
const GROUP_PAIRS = new Set(['for each', 'grouped by', 'group by', 'broken down', 'breakdown by', 'split by', 'for every', 'bucketed by']);
const GROUP_WORDS = new Set(['per', 'by', 'each', 'every']);
const BUCKETS: Record<string, string> = { second: 's', minute: 'm', min: 'm', hour: 'h', day: 'd', week: 'w' };
const PHRASE_INTROS = new Set(['containing', 'contains', 'contain', 'mentioning', 'mentions', 'mention', 'matching', 'match',
  'matches', 'saying', 'says', 'say', 'message', 'messages', 'msg', 'text', 'including', 'include', 'includes', 'like']);
const PHRASE_NOUNS = new Set(['text', 'word', 'words', 'phrase', 'string', 'message']);
const RANK_WORDS = new Set(['count', 'volume', 'hits', 'logs', 'entries', 'events', 'number', 'frequency', 'occurrences', 'lines']);
const PRESENCE = new Set(['with', 'having', 'has', 'have', 'without']);
const ALL_WORDS = new Set(['all', 'every', 'any']);
const NEWEST_WORDS = new Set(['last', 'latest', 'newest', 'recent']);
/** Comparison words → LogsQL range operators ("status above 499" → `status:>499`). */
const COMPARATORS: [string[], '>' | '>=' | '<' | '<='][] = [
  [['greater', 'than'], '>'], [['more', 'than'], '>'], [['higher', 'than'], '>'], [['at', 'least'], '>='],
  [['less', 'than'], '<'], [['fewer', 'than'], '<'], [['lower', 'than'], '<'], [['at', 'most'], '<='],
  [['over'], '>'], [['above'], '>'], [['exceeding'], '>'], [['>'], '>'], [['>='], '>='],
  [['below'], '<'], [['under'], '<'], [['<'], '<'], [['<='], '<='],
];

interface Mention {
  field: string;
  from: number;
  to: number;
}

export async function readLogs(l: Ledger, schema: LogSchema): Promise<LogsIntent> {
  return new LogsReader(l, schema).read();
}

class LogsReader {
  private readonly intent: LogsIntent = { conditions: [], groupBy: [] };
  private readonly neg = new Negation();
  private readonly mentions: Mention[] = [];

  constructor(private readonly l: Ledger, private readonly schema: LogSchema) {}

  async read(): Promise<LogsIntent> {
    const { l } = this;
    for (let i = 0; i < l.length;) {
      if (!l.free(i)) {
        i++;
        continue;
      }
      const next = await this.step(i);
      if (next === undefined) {
        this.neg.reset();
        i++;
      } else {
        i = next;
      }
    }
    this.finish();
    return this.intent;
  }

  private async step(i: number): Promise<number | undefined> {
    const { l } = this;
    const t = l.free(i);
    if (!t) return undefined;
    const steered = negationStep(l, i, this.neg);
    if (steered !== undefined) return steered;
    if (t.kind === 'quoted') {
      this.add({ kind: 'phrase', text: t.text }, i, i + 1, `'${t.text}' is a phrase of the message`);
      return i + 1;
    }
    return this.countAt(i) ?? this.groupAt(i) ?? this.topAt(i) ?? this.newestAt(i) ?? this.severityAt(i)
      ?? this.phraseAt(i) ?? this.logWordAt(i) ?? (await this.fieldAt(i)) ?? this.valueAt(i) ?? this.fillerAt(i);
  }

  // --- filters ---

  private add(clause: Clause, from: number, to: number, note: string): void {
    const negated = this.neg.take();
    this.intent.conditions.push({ clause, negated });
    this.l.place(from, to, negated ? `${note}, excluded` : note);
  }

  private severityAt(i: number): number | undefined {
    const level = SEVERITIES[this.l.word(i) ?? ''];
    if (level === undefined) return undefined;
    // "fatal errors", "critical errors": the adjective names the level, "errors" is just the noun.
    const to = level !== 'error' && SEVERITIES[this.l.word(i + 1) ?? ''] === 'error' ? i + 2 : i + 1;
    this.add({ kind: 'level', level }, i, to, `'${this.l.text(i, to)}' → level ${level}`);
    return to;
  }

  /** "containing timeout", "with message connection refused", "mentioning 'disk full'". */
  private phraseAt(i: number): number | undefined {
    const { l } = this;
    if (!PHRASE_INTROS.has(l.word(i) ?? '')) return undefined;
    let at = i + 1;
    if (l.word(at) === 'the' || l.word(at) === 'a') at++;
    if (PHRASE_NOUNS.has(l.word(at) ?? '')) at++;
    const quoted = l.free(at);
    if (quoted?.kind === 'quoted') {
      this.add({ kind: 'phrase', text: quoted.text }, i, at + 1, `'${quoted.text}' is a phrase of the message`);
      return at + 1;
    }
    const words: string[] = [];
    let end = at;
    while (l.free(end)?.kind === 'word' && !this.endsPhrase(end)) words.push(l.free(end++)?.text ?? '');
    if (words.length === 0) return undefined;
    const text = words.join(' ');
    this.add({ kind: 'phrase', text }, i, end, `'${text}' is a phrase of the message`);
    return end;
  }

  private endsPhrase(i: number): boolean {
    const w = this.l.word(i) ?? '';
    return PREPOSITIONS.has(w) || GROUP_WORDS.has(w) || negationAt(this.l, i) !== undefined || isConnector(this.l, i)
      || LOG_WORDS.has(w) || w === 'since' || w === 'between';
  }

  /** A field name: then a comparison, a value, presence ("with a trace id"), or a bare mention for a breakdown. */
  private async fieldAt(i: number): Promise<number | undefined> {
    const { l } = this;
    const m = longestMatch(l, i, this.schema.fieldIndex);
    if (!m) return undefined;
    const field = m.hit;
    const name = l.text(i, m.to);
    if (field === 'severity' && SEVERITIES[l.word(m.to) ?? ''] !== undefined) {
      l.place(i, m.to);
      return m.to;
    }
    let at = m.to;
    const cmp = comparatorAt(l, at);
    if (cmp) {
      const n = Number(l.word(cmp.to));
      if (l.word(cmp.to) !== undefined && Number.isFinite(n)) {
        this.add({ kind: 'range', field, op: cmp.op, value: n }, i, cmp.to + 1, `'${l.text(i, cmp.to + 1)}' → ${field} ${cmp.op} ${n}`);
        return cmp.to + 1;
      }
    }
    if (['is', '=', 'equals', ':', 'of'].includes(l.word(at) ?? '')) at++;
    const v = l.free(at);
    if (v && this.isValueToken(at)) {
      await this.addFieldValue(field, v.text, i, at + 1, name);
      return at + 1;
    }
    // "with a trace id", "without a trace id" (the negation reads "without"): presence of the field.
    const prev = l.tokens[i - 1]?.lower ?? '';
    const lead = ['a', 'an', 'any'].includes(prev) ? (l.tokens[i - 2]?.lower ?? '') : prev;
    if (PRESENCE.has(lead)) {
      this.add({ kind: 'exists', field }, i, m.to, `'${name}' → entries that have ${field}`);
      return m.to;
    }
    this.mentions.push({ field, from: i, to: m.to });
    return m.to;
  }

  /** A token that can be a value after a field name: not a word of the question's own grammar. */
  private isValueToken(i: number): boolean {
    const t = this.l.free(i);
    if (!t) return false;
    if (t.kind === 'quoted') return true;
    if (t.kind !== 'word') return false;
    const w = t.lower;
    return !STOP_WORDS.has(w) && !PREPOSITIONS.has(w) && !GROUP_WORDS.has(w) && !LOG_WORDS.has(w) && !isConnector(this.l, i)
      && negationAt(this.l, i) === undefined && SEVERITIES[w] === undefined && !COUNT_WORDS.has(w) && w !== 'since' && w !== 'between';
  }

  private async addFieldValue(field: string, raw: string, from: number, to: number, name: string): Promise<void> {
    const known = (await this.schema.valuesOf(field)).find((r) => r.value.toLowerCase() === raw.toLowerCase());
    if (known) {
      this.add(this.valueClause(known), from, to, `'${name} ${raw}' → ${field} ${known.value}`);
    } else {
      this.add({ kind: 'value', field, value: raw, match: 'exact' }, from, to,
        `'${name} ${raw}' → ${field} exactly ${raw} (not among its recent values)`);
    }
  }

  private valueClause(r: ValueRef): Clause {
    const match = r.streamOnly ? 'stream' : this.schema.wordIsAmbiguous(r.field, r.value) ? 'exact' : 'word';
    return { kind: 'value', field: r.field, value: r.value, match };
  }

  /** A known value of some field ("checkout" → service), then optionally that field's name ("checkout service"). */
  private valueAt(i: number): number | undefined {
    const { l } = this;
    const m = longestMatch(l, i, this.schema.valueIndex);
    const ref = m?.hit[0];
    if (!m || !ref) return undefined;
    let to = m.to;
    const trailing = longestMatch(l, to, this.schema.fieldIndex);
    if (trailing?.hit === ref.field) to = trailing.to;
    const others = m.hit.slice(1).map((r) => r.field);
    const also = others.length > 0 ? ` (also a value of ${others.join(', ')})` : '';
    this.add(this.valueClause(ref), i, to, `'${l.text(i, m.to)}' is a value of ${ref.field}${also}`);
    return to;
  }

  // --- counts, breakdowns, top-N ---

  private countAt(i: number): number | undefined {
    const { l } = this;
    const w = l.word(i) ?? '';
    let at: number;
    if (COUNT_PAIRS.has(`${w} ${l.word(i + 1) ?? ''}`)) at = i + 2;
    else if (COUNT_WORDS.has(w)) at = i + 1;
    else if (UNIQ_WORDS.has(w)) at = i;
    else return undefined;
    if (l.word(at) === 'of') at++;
    if (UNIQ_WORDS.has(l.word(at) ?? '')) {
      const f = longestMatch(l, at + 1, this.schema.fieldIndex);
      if (!f) return at === i ? undefined : this.placeCount(i, at, undefined);
      return this.placeCount(i, f.to, f.hit);
    }
    return at === i ? undefined : this.placeCount(i, at, undefined);
  }

  private placeCount(from: number, to: number, uniqField: string | undefined): number {
    this.intent.count = uniqField === undefined ? (this.intent.count ?? {}) : { uniqField };
    this.l.place(from, to, uniqField === undefined ? `'${this.l.text(from, to)}' → count()` : `'${this.l.text(from, to)}' → count_uniq(${uniqField})`);
    this.neg.reset();
    return to;
  }

  /** "per service", "by host and region", "for each customer", "per hour". */
  private groupAt(i: number): number | undefined {
    const { l } = this;
    const w = l.word(i) ?? '';
    let at: number;
    if (GROUP_PAIRS.has(`${w} ${l.word(i + 1) ?? ''}`)) at = i + 2;
    else if (GROUP_WORDS.has(w)) at = i + 1;
    else return undefined;
    if (l.word(at) === 'by' || l.word(at) === 'each') at++;
    const fields = this.fieldList(at, true);
    if (!fields) return undefined;
    this.intent.groupBy.push(...fields.fields.filter((f) => !this.intent.groupBy.includes(f)));
    l.place(i, fields.to, `'${l.text(i, fields.to)}' → grouped by ${fields.fields.join(', ')}`);
    this.neg.reset();
    return fields.to;
  }

  /** Field names joined by "and" / ","; with `buckets`, also a time unit ("hour" → `_time:1h`). */
  private fieldList(i: number, buckets: boolean): { fields: string[]; to: number } | undefined {
    const { l } = this;
    const fields: string[] = [];
    let at = i;
    for (;;) {
      if (l.word(at) === 'the') at++;
      const n = numberWord(l.word(at));
      const unit = BUCKETS[stem(l.word(n === undefined ? at : at + 1) ?? '')];
      if (buckets && unit !== undefined) {
        fields.push(`_time:${n ?? 1}${unit}`);
        at += n === undefined ? 1 : 2;
      } else {
        const f = longestMatch(l, at, this.schema.fieldIndex);
        if (!f) break;
        fields.push(f.hit);
        at = f.to;
      }
      if (!isConnector(l, at)) break;
      at++;
    }
    if (fields.length === 0) return undefined;
    // A dangling connector belongs to what follows, not to the list.
    while (at > i && isConnector(l, at - 1)) at--;
    return { fields, to: at };
  }

  /** "top 5 services by errors", "top hosts", "which service has the most errors", "most common customers". */
  private topAt(i: number): number | undefined {
    const { l } = this;
    const w = l.word(i) ?? '';
    if (w === 'top') {
      let at = i + 1;
      const n = numberWord(l.word(at));
      if (n !== undefined && l.word(at) !== 'a') at++;
      this.intent.top = n !== undefined && Number.isInteger(n) && n > 0 ? n : 10;
      const fields = this.fieldList(at, false);
      if (fields) {
        this.intent.groupBy.push(...fields.fields);
        at = fields.to;
      }
      at = this.rankBy(at);
      l.place(i, at, `'${l.text(i, at)}' → the ${this.intent.top} largest groups by count`);
      this.neg.reset();
      return at;
    }
    if (w === 'most' || w === 'busiest' || w === 'noisiest') {
      let at = i + 1;
      const common = ['common', 'frequent', 'often', 'frequently'].includes(l.word(at) ?? '');
      if (common) at++;
      this.intent.top = common ? 10 : 1;
      l.place(i, at, `'${l.text(i, at)}' → the ${this.intent.top === 1 ? 'largest group' : '10 largest groups'} by count`);
      this.neg.reset();
      return at;
    }
    return undefined;
  }

  /** "by errors" (the severity rule reads "errors"), "by count", "by volume", "by error count". */
  private rankBy(at: number): number {
    const { l } = this;
    if (l.word(at) !== 'by') return at;
    const next = l.word(at + 1) ?? '';
    if (RANK_WORDS.has(next)) return at + 2;
    if (SEVERITIES[next] !== undefined) return at + 1;
    return at;
  }

  /** "last 5 errors", "latest 20 logs" → the newest N. */
  private newestAt(i: number): number | undefined {
    const { l } = this;
    const w = l.word(i) ?? '';
    let at = i;
    if (w === 'most' && l.word(i + 1) === 'recent') at++;
    else if (!NEWEST_WORDS.has(w)) return undefined;
    const n = numberWord(l.word(at + 1));
    if (n === undefined || !Number.isInteger(n) || n <= 0) return undefined;
    this.intent.newest = n;
    l.place(i, at + 2, `'${l.text(i, at + 2)}' → the newest ${n}`);
    return at + 2;
  }

  /** "logs", "entries", "messages": what is asked for, not a field ("messages" is not `_msg` here). */
  private logWordAt(i: number): number | undefined {
    if (!LOG_WORDS.has(this.l.word(i) ?? '')) return undefined;
    this.l.place(i, i + 1);
    this.neg.reset();
    return i + 1;
  }

  /**
   * Words that carry nothing ("show me", "the") or that only introduce a value ("from", "on", and "by" when no
   * breakdown follows: "logged by the cart service"); "all services" names no filter.
   */
  private fillerAt(i: number): number | undefined {
    const { l } = this;
    const w = l.word(i) ?? '';
    if (ALL_WORDS.has(w)) {
      const f = longestMatch(l, i + 1, this.schema.fieldIndex);
      if (f && !this.isValueToken(f.to)) {
        l.place(i, f.to, `'${l.text(i, f.to)}' → no filter on ${f.hit}`);
        this.neg.filler();
        return f.to;
      }
    }
    if (STOP_WORDS.has(w) || PREPOSITIONS.has(w) || w === 'by') {
      l.place(i, i + 1);
      this.neg.filler();
      return i + 1;
    }
    return undefined;
  }

  /** Bare field mentions name the breakdown of a count or top-N ("which service has the most errors"). */
  private finish(): void {
    const { intent, l } = this;
    if ((intent.top !== undefined || intent.count !== undefined) && intent.groupBy.length === 0) {
      for (const m of this.mentions) {
        if (!intent.groupBy.includes(m.field)) intent.groupBy.push(m.field);
        l.place(m.from, m.to, `'${l.text(m.from, m.to)}' → grouped by ${m.field}`);
      }
    }
    if (intent.top !== undefined && intent.groupBy.length === 0) {
      intent.groupBy.push('_msg');
      l.notes.push('no field to rank, so the messages are ranked');
    }
    if (intent.groupBy.length > 0 && intent.count === undefined) intent.count = {};
  }
}

function comparatorAt(l: Ledger, i: number): { op: '>' | '>=' | '<' | '<='; to: number } | undefined {
  for (const [words, op] of COMPARATORS) {
    if (words.every((w, k) => l.word(i + k) === w)) return { op, to: i + words.length };
  }
  return undefined;
}
