// LogsQL in the editor: highlighting by a small stream tokenizer, and completion of field names and values from
// the tenant's own data (`field_names`, `field_values`, DESIGN §7 Explore), plus the pipes and operators.
import { StreamLanguage, type StreamParser } from '@codemirror/language';
import type { Completion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import type { Extension } from '@codemirror/state';
import { tags } from '@lezer/highlight';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';

const PIPES = ['stats', 'sort by', 'limit', 'offset', 'fields', 'delete', 'head'];
const STATS_FUNCS = ['count()', 'count_uniq()', 'sum()', 'min()', 'max()', 'avg()', 'quantile(0.9, )', 'median()'];
const WORDS = ['AND', 'OR', 'NOT', '_time:5m', '_time:1h', '_stream:{}', '_msg:'];

const parser: StreamParser<{ afterPipe: boolean }> = {
  startState: () => ({ afterPipe: false }),
  token(stream, state) {
    if (stream.eatSpace()) return null;
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return 'string';
    if (stream.match(/^'(?:[^'\\]|\\.)*'?/)) return 'string';
    if (stream.match('|')) {
      state.afterPipe = true;
      return 'operator';
    }
    if (stream.match(/^(AND|OR|NOT)\b/i)) return 'keyword';
    if (stream.match(/^[\w.@-]+(?=:)/)) return 'propertyName';
    if (stream.match(/^:[=~!<>]*/)) return 'operator';
    if (stream.match(/^-?\d+(\.\d+)?(ms|s|m|h|d|w)?\b/)) return 'number';
    if (stream.match(/^[\w.*@/-]+/)) {
      if (state.afterPipe) {
        state.afterPipe = false;
        return 'keyword';
      }
      return null;
    }
    stream.next();
    return null;
  },
};

const highlight = HighlightStyle.define([
  { tag: tags.string, class: 'tok-str' },
  { tag: tags.propertyName, class: 'tok-field' },
  { tag: tags.operator, class: 'tok-op' },
  { tag: tags.keyword, class: 'tok-pipe' },
  { tag: tags.number, class: 'tok-num' },
]);

export interface LogsqlSources {
  fieldNames: () => Promise<string[]>;
  fieldValues: (field: string) => Promise<string[]>;
}

/** A LogsQL value as it must be written after `field:` (quoted unless it is a plain word). */
export function quoteValue(v: string): string {
  return /^[\w.@/-]+$/.test(v) && !/^(AND|OR|NOT)$/i.test(v) ? v : JSON.stringify(v);
}

export function logsqlLanguage(sources: LogsqlSources): Extension {
  const complete = async (ctx: CompletionContext): Promise<CompletionResult | null> => {
    const valueMatch = ctx.matchBefore(/[\w.@-]+:=?"?[^\s"|()]*$/);
    if (valueMatch) {
      const m = /^([\w.@-]+):(=?)("?)(.*)$/.exec(valueMatch.text);
      if (m?.[1] !== undefined) {
        const field = m[1];
        const from = valueMatch.from + field.length + 1 + (m[2] ?? '').length;
        const values = await sources.fieldValues(field);
        const options: Completion[] = values.map((v) => ({ label: quoteValue(v), type: 'text', detail: field }));
        return { from, options, validFor: /^"?[^\s"|()]*$/ };
      }
    }
    const afterPipe = ctx.matchBefore(/\|\s*[\w ]*$/);
    if (afterPipe) {
      const word = ctx.matchBefore(/[\w]*$/);
      return { from: word?.from ?? ctx.pos, options: PIPES.map((p) => ({ label: p, type: 'keyword' })) };
    }
    const statsFn = ctx.matchBefore(/stats(\s+by\s*\([^)]*\))?\s+\w*$/);
    if (statsFn) {
      const word = ctx.matchBefore(/\w*$/);
      return { from: word?.from ?? ctx.pos, options: STATS_FUNCS.map((f) => ({ label: f, type: 'function' })) };
    }
    const word = ctx.matchBefore(/[\w.@-]+$/);
    if (!word && !ctx.explicit) return null;
    const names = await sources.fieldNames();
    const options: Completion[] = [
      ...names.map((n) => ({ label: `${n}:`, displayLabel: n, type: 'property', boost: 1 })),
      ...WORDS.map((w) => ({ label: w, type: 'keyword' })),
    ];
    return { from: word?.from ?? ctx.pos, options, validFor: /^[\w.@-]*$/ };
  };
  const language = StreamLanguage.define(parser);
  return [language, language.data.of({ autocomplete: complete }), syntaxHighlighting(highlight)];
}
