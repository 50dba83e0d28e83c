// LogsQL tokens, read on demand: the same characters mean different things in different places
// (`-` negates before a filter but is part of `field:-5` or `foo-bar`; `=` and `~` are operators only after
// `field:`), so the parser says which mode it is in, as VictoriaLogs' own lexer does with its context checks.

/** An invalid query: `position` is the 0-based character offset the API's 400 detail points at (DESIGN §4). */
export class LogsqlSyntaxError extends Error {
  constructor(readonly reason: string, readonly position: number) {
    super(`${reason} at position ${position}`);
    this.name = 'LogsqlSyntaxError';
  }
}

export type TokenKind = 'word' | 'string' | 'punct' | 'eof';

export interface Token {
  kind: TokenKind;
  /** word: its text; string: the unescaped value; punct: the symbol; eof: ''. */
  text: string;
  /** Offsets of the token in the query text: [pos, end). */
  pos: number;
  end: number;
}

/**
 * - `filter`: where a filter or a pipe argument starts.
 * - `value`: right after `field:`, where `=`, `~`, `>`, `>=`, `<`, `<=`, `[` and `{` are operators.
 * - `operand`: after such an operator, where a leading `-` belongs to the value.
 * - `stream`: inside `_stream:{…}`.
 */
export type LexMode = 'filter' | 'value' | 'operand' | 'stream';

const QUOTES = '"\'`';
/** Characters that end a bare word in every mode but `stream`. */
const WORD_STOPS = '(),|:*';
const STREAM_STOPS = ',}=!~';
const VALUE_OPS = ['>=', '<=', '>', '<', '=', '~'];
const STREAM_OPS = ['=~', '!~', '!=', '='];

const isSpace = (c: string): boolean => /\s/u.test(c);

export class Lexer {
  constructor(readonly text: string) {}

  /** The next token in `mode` starting at `from`; the lexer keeps no state, so peeking is just calling this. */
  token(from: number, mode: LexMode): Token {
    const s = this.text;
    const pos = this.skipSpace(from);
    const c = s[pos];
    if (c === undefined) return { kind: 'eof', text: '', pos, end: pos };
    if (QUOTES.includes(c)) return this.quoted(pos);
    if (mode === 'stream') {
      const op = STREAM_OPS.find((o) => s.startsWith(o, pos));
      if (op !== undefined) return punct(op, pos);
      if (c === ',' || c === '}') return punct(c, pos);
      return this.word(pos, (ch) => STREAM_STOPS.includes(ch) || QUOTES.includes(ch));
    }
    if (WORD_STOPS.includes(c)) return punct(c, pos);
    if (mode === 'value') {
      const op = VALUE_OPS.find((o) => s.startsWith(o, pos));
      if (op !== undefined) return punct(op, pos);
      if (c === '[' || c === '{') return punct(c, pos);
    }
    if (mode === 'filter') {
      if (c === '-' || c === '!') return punct(c, pos);
      // Bare `~"re"` and `="x"` filter `_msg` (VictoriaLogs); elsewhere `~` and `=` are ordinary characters.
      const next = s[pos + 1];
      if ((c === '~' || c === '=') && next !== undefined && QUOTES.includes(next)) return punct(c, pos);
    }
    return this.word(pos, (ch) => WORD_STOPS.includes(ch) || QUOTES.includes(ch));
  }

  skipSpace(from: number): number {
    let i = from;
    while (i < this.text.length && isSpace(this.text[i] ?? '')) i++;
    return i;
  }

  /** Raw text from `from` (after spaces) up to a space or one of `stops`: timestamps and durations. */
  raw(from: number, stops: string): Token {
    const pos = this.skipSpace(from);
    let end = pos;
    while (end < this.text.length) {
      const ch = this.text[end] ?? '';
      if (isSpace(ch) || stops.includes(ch)) break;
      end++;
    }
    return { kind: end === pos ? 'eof' : 'word', text: this.text.slice(pos, end), pos, end };
  }

  private word(pos: number, stop: (ch: string) => boolean): Token {
    let end = pos;
    while (end < this.text.length) {
      const ch = this.text[end] ?? '';
      if (isSpace(ch) || stop(ch)) break;
      end++;
    }
    if (end === pos) throw new LogsqlSyntaxError(`unexpected '${this.text[pos] ?? ''}'`, pos);
    return { kind: 'word', text: this.text.slice(pos, end), pos, end };
  }

  /** `"…"`, `'…'` and `` `…` ``, all with backslash escapes (an unknown escape keeps its backslash, so `"\d+"` stays a regexp). */
  private quoted(pos: number): Token {
    const s = this.text;
    const q = s[pos];
    let out = '';
    let i = pos + 1;
    while (i < s.length) {
      const ch = s[i] ?? '';
      if (ch === q) return { kind: 'string', text: out, pos, end: i + 1 };
      if (ch !== '\\') {
        out += ch;
        i++;
        continue;
      }
      const [decoded, used] = unescape(s, i);
      out += decoded;
      i += used;
    }
    throw new LogsqlSyntaxError('unterminated string', pos);
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', a: '\x07', '0': '\0',
  '\\': '\\', '"': '"', "'": "'", '`': '`',
};

/** Decodes the escape at `s[i] === '\\'`: the text it stands for and how many characters it used. */
function unescape(s: string, i: number): [string, number] {
  const e = s[i + 1];
  if (e === undefined) throw new LogsqlSyntaxError('unterminated string', i);
  const simple = SIMPLE_ESCAPES[e];
  if (simple !== undefined) return [simple, 2];
  const hexLen = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
  if (hexLen > 0) {
    const hex = s.slice(i + 2, i + 2 + hexLen);
    const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === hexLen ? parseInt(hex, 16) : NaN;
    if (Number.isNaN(code) || code > 0x10ffff) throw new LogsqlSyntaxError(`invalid escape '\\${e}${hex}'`, i);
    return [String.fromCodePoint(code), 2 + hexLen];
  }
  return [`\\${e}`, 2];
}

function punct(text: string, pos: number): Token {
  return { kind: 'punct', text, pos, end: pos + text.length };
}

/** How a token reads in an error: `')'`, `'foo'`, `end of query`. */
export function describe(t: Token, source: string): string {
  if (t.kind === 'eof') return 'end of query';
  return `'${source.slice(t.pos, t.end)}'`;
}
