// A question in English → tokens, and the ledger of which tokens the translator has placed (issue 10 item 2:
// "a question it cannot map gets a 422 that says which words it could not place"). Every later pass marks the
// tokens it used with a note for the explanation; whatever is left unmarked is what the 422 names.

export type TokenKind = 'word' | 'quoted' | 'comma';

export interface Token {
  kind: TokenKind;
  /** As written (a quoted token: the text between the quotes). */
  text: string;
  /** Lowercased, possessive `'s` dropped: what the vocabularies compare against. */
  lower: string;
}

/** Opening → closing quote; curly quotes come from phones and word processors. */
const QUOTES: Record<string, string> = { '"': '"', "'": "'", '`': '`', '“': '”', '‘': '’' };
/** Punctuation that ends a sentence or a clause but means nothing to a query. */
const TRAILING = /[?!.;:)\]}]+$/u;
const LEADING = /^[([{]+/u;

/** Splits a question into words, quoted phrases and commas (commas join lists: "except cart, payments"). */
export function tokenize(question: string): Token[] {
  const out: Token[] = [];
  const s = question;
  let i = 0;
  while (i < s.length) {
    const c = s[i] ?? '';
    if (/\s/u.test(c)) {
      i++;
      continue;
    }
    if (c === ',') {
      out.push({ kind: 'comma', text: ',', lower: ',' });
      i++;
      continue;
    }
    const close = QUOTES[c];
    if (close !== undefined) {
      const end = s.indexOf(close, i + 1);
      // A quote closes only before a space or punctuation, so "checkout's" inside a phrase does not end it.
      if (end > i + 1 && (end + 1 >= s.length || /[\s,?!.;:)]/u.test(s[end + 1] ?? ''))) {
        const text = s.slice(i + 1, end);
        out.push({ kind: 'quoted', text, lower: text.toLowerCase() });
        i = end + 1;
        continue;
      }
    }
    let j = i;
    while (j < s.length && !/[\s,]/u.test(s[j] ?? '')) j++;
    pushWord(out, s.slice(i, j));
    i = j;
  }
  return out;
}

function pushWord(out: Token[], raw: string): void {
  let text = raw.replace(LEADING, '');
  // A trailing `.` is punctuation, except in a number or a version ("1.5", "v1.4.2" never end in one).
  text = text.replace(TRAILING, '');
  if (text === '') return;
  const lower = text.toLowerCase().replace(/['’]s$/u, '');
  out.push({ kind: 'word', text, lower });
}

/** The tokens of one question and which of them have been placed, with a note per placement for the explanation. */
export class Ledger {
  private readonly placed: boolean[];
  readonly notes: string[] = [];

  constructor(readonly tokens: readonly Token[]) {
    this.placed = tokens.map(() => false);
  }

  get length(): number {
    return this.tokens.length;
  }

  isPlaced(i: number): boolean {
    return this.placed[i] === true;
  }

  /** The token at i when it exists and is still unplaced. */
  free(i: number): Token | undefined {
    return this.placed[i] === false ? this.tokens[i] : undefined;
  }

  /** The lowercased word at i when it is an unplaced word token. */
  word(i: number): string | undefined {
    const t = this.free(i);
    return t?.kind === 'word' ? t.lower : undefined;
  }

  /** Marks tokens [from, to) placed; a note says how they were read. */
  place(from: number, to: number, note?: string): void {
    for (let k = from; k < to; k++) this.placed[k] = true;
    if (note !== undefined) this.notes.push(note);
  }

  placeAt(indices: readonly number[], note?: string): void {
    for (const k of indices) this.placed[k] = true;
    if (note !== undefined) this.notes.push(note);
  }

  /** Text of tokens [from, to) as written. */
  text(from: number, to: number): string {
    return this.tokens.slice(from, to).map((t) => (t.kind === 'quoted' ? `'${t.text}'` : t.text)).join(' ');
  }

  /** The words nothing placed, as written (commas never count). */
  unplaced(): string[] {
    return this.tokens.flatMap((t, i) => (this.placed[i] === true || t.kind === 'comma' ? [] : [t.text]));
  }
}
