// Loki stream labels as a Prometheus selector string, `{job="api", env="prod"}` (wire-formats.md §3.4:
// StreamAdapter.labels, and the legacy JSON `labels`). Only `=` matchers make sense for a stream; values
// are quoted with `"` or `'` and take Go-style escapes (\" \\ \n \t \r \xNN \uNNNN …), or raw in backticks.
// Errors are 400s whose detail names the position, never the text.
import { errors } from '../../errors.js';

export type Labels = Record<string, string>;

const NAME_START = /[A-Za-z_:]/;
const NAME_CHAR = /[A-Za-z0-9_:.]/;
const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"', "'": "'", '\\': '\\', n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v',
};

class SelectorParser {
  private i = 0;
  constructor(private readonly s: string) {}

  fail(what: string): never {
    throw errors.badRequest(`invalid stream labels at character ${this.i + 1}: ${what}`);
  }

  private skipSpace(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i] ?? '')) this.i++;
  }

  private expect(c: string): void {
    this.skipSpace();
    if (this.s[this.i] !== c) this.fail(`expected '${c}'`);
    this.i++;
  }

  parse(): Labels {
    const labels: Labels = Object.create(null) as Labels;
    this.expect('{');
    this.skipSpace();
    while (this.s[this.i] !== '}') {
      const at = this.i;
      const name = this.name();
      this.skipSpace();
      if (this.s.startsWith('!=', this.i) || this.s.startsWith('=~', this.i) || this.s.startsWith('!~', this.i)) {
        this.fail(`label ${name} must use '=' (a stream has exact labels)`);
      }
      this.expect('=');
      this.skipSpace();
      const value = this.value();
      if (Object.prototype.hasOwnProperty.call(labels, name)) {
        this.i = at;
        this.fail(`duplicate label name ${name}`);
      }
      labels[name] = value;
      this.skipSpace();
      if (this.s[this.i] === ',') {
        this.i++;
        this.skipSpace();
      } else if (this.s[this.i] !== '}') this.fail("expected ',' or '}'");
    }
    this.i++;
    this.skipSpace();
    if (this.i < this.s.length) this.fail("unexpected text after '}'");
    return { ...labels };
  }

  private name(): string {
    const start = this.i;
    if (!NAME_START.test(this.s[this.i] ?? '')) this.fail('expected a label name');
    while (this.i < this.s.length && NAME_CHAR.test(this.s[this.i] ?? '')) this.i++;
    return this.s.slice(start, this.i);
  }

  private value(): string {
    const quote = this.s[this.i];
    if (quote === '`') {
      const end = this.s.indexOf('`', this.i + 1);
      if (end < 0) this.fail('unterminated label value');
      const v = this.s.slice(this.i + 1, end);
      this.i = end + 1;
      return v;
    }
    if (quote !== '"' && quote !== "'") this.fail('expected a quoted label value');
    this.i++;
    let out = '';
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined || c === '\n') this.fail('unterminated label value');
      this.i++;
      if (c === quote) return out;
      if (c !== '\\') {
        out += c;
        continue;
      }
      out += this.escape();
    }
  }

  private escape(): string {
    const e = this.s[this.i] ?? '';
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      this.i++;
      return simple;
    }
    const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (width > 0) {
      const hex = this.s.slice(this.i + 1, this.i + 1 + width);
      if (hex.length !== width || !/^[0-9a-fA-F]+$/.test(hex)) this.fail(`bad \\${e} escape`);
      const code = parseInt(hex, 16);
      if (code > 0x10ffff) this.fail(`bad \\${e} escape`);
      this.i += 1 + width;
      return String.fromCodePoint(code);
    }
    if (/[0-7]/.test(e)) {
      const oct = this.s.slice(this.i, this.i + 3);
      if (!/^[0-7]{3}$/.test(oct)) this.fail('bad octal escape');
      this.i += 3;
      return String.fromCharCode(parseInt(oct, 8));
    }
    return this.fail(`unknown escape \\${e}`);
  }
}

/** `{a="b", c="d\"e"}` → `{a: 'b', c: 'd"e'}`; 400 with the position on anything else. */
export function parseLabels(selector: string): Labels {
  return new SelectorParser(selector).parse();
}

function quote(v: string): string {
  return `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

/** The `_stream` form: `{k="v",…}` sorted by key, values escaped so `parseLabels` reads them back. */
export function formatLabels(labels: Labels): string {
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return '';
  return `{${keys.map((k) => `${k}=${quote(labels[k] ?? '')}`).join(',')}}`;
}
