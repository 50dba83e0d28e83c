// A Markdown runbook → a ParsedPlaybook (issue 10 item 4; DESIGN §9). The subset of CommonMark
// (https://spec.commonmark.org/) that runbooks use: ATX and setext headings, numbered list items with their indented
// continuation, fenced code blocks (``` and ~~~, also inside list items), and paragraphs. The title is the first H1,
// else the first heading, else "Untitled playbook". Each later heading and each numbered item is a step; a heading
// with nothing of its own but items is only their section. A step's code blocks are its query (LogsQL / PromQL,
// validated by the real parsers) or its manual command (shell: shown, never run); its prose is searched for bound
// sentences ("alert if … above …", bounds.ts).
import { extractBounds } from './bounds.js';
import { classifyCode } from './queries.js';
import type { ParsedPlaybook, ParsedStep } from './model.js';

type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'item'; text: string; indent: number }
  | { type: 'text'; text: string; indent: number }
  | { type: 'code'; lang: string; code: string };

const HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const ITEM = /^( {0,3})(\d{1,9})[.)]\s+(.*)$/;
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const SETEXT = /^ {0,3}(=+|-+)\s*$/;
export const UNTITLED = 'Untitled playbook';
const MAX_TITLE = 120;

/** Lines → blocks. Fences are closed by a fence of the same character at least as long (CommonMark 4.5). */
export function blocksOf(markdown: string): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fence = FENCE.exec(line);
    if (fence?.[2] !== undefined) {
      const indent = fence[1]?.length ?? 0;
      const marker = fence[2];
      const body: string[] = [];
      let j = i + 1;
      for (; j < lines.length; j++) {
        const l = lines[j] ?? '';
        if (l.trim().startsWith(marker) && l.trim().replace(/[`~]/g, '') === '' && l.trim().length >= marker.length && l.trim()[0] === marker[0]) break;
        body.push(l.slice(Math.min(indent, l.length - l.trimStart().length)));
      }
      out.push({ type: 'code', lang: fence[3] ?? '', code: body.join('\n') });
      i = j;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading?.[1] !== undefined) {
      out.push({ type: 'heading', level: heading[1].length, text: headingText(heading[2] ?? '') });
      continue;
    }
    const next = lines[i + 1] ?? '';
    const setext = SETEXT.exec(next);
    const prev = out.at(-1);
    if (setext?.[1] !== undefined && line.trim() !== '' && !ITEM.test(line) && (prev === undefined || prev.type !== 'text' || lines[i - 1]?.trim() === '')) {
      out.push({ type: 'heading', level: setext[1].startsWith('=') ? 1 : 2, text: headingText(line) });
      i++;
      continue;
    }
    const item = ITEM.exec(line);
    if (item?.[3] !== undefined) {
      out.push({ type: 'item', text: item[3], indent: (item[1]?.length ?? 0) + (item[2]?.length ?? 0) + 2 });
      continue;
    }
    if (line.trim() === '') {
      out.push({ type: 'text', text: '', indent: 0 });
      continue;
    }
    const indent = line.length - line.trimStart().length;
    // A line right after an item (or its continuation) belongs to it: indented, or a lazy continuation line.
    if (prev?.type === 'item' && (indent > 0 || lines[i - 1]?.trim() !== '')) {
      prev.text += `\n${line.trim()}`;
      continue;
    }
    out.push({ type: 'text', text: line.trim(), indent });
  }
  return out;
}

/** Markdown emphasis and links → their text (titles and sentences read better without them). */
function inline(s: string): string {
  return s.replace(/\*\*([^*]+)\*\*|__([^_]+)__/g, '$1$2').replace(/\[([^\]]+)\]\([^)]*\)/g, '$1').trim();
}

/** A heading's text without the step number runbooks often give it ("## 2. Restart the pods", "### Step 3: …"). */
function headingText(s: string): string {
  return inline(s).replace(/^(?:step\s+)?\d+[.):]\s+/i, '').trim();
}

/** An item's title: its first sentence (up to MAX_TITLE), without a trailing colon. */
function titleOf(text: string): string {
  const first = inline(text.split('\n')[0] ?? '').replace(/`/g, '');
  const sentence = /^(.+?[.!?:])(\s|$)/.exec(first)?.[1] ?? first;
  const t = sentence.replace(/[.:]$/, '').trim();
  return t.length <= MAX_TITLE ? t : `${t.slice(0, MAX_TITLE - 1)}…`;
}

interface Draft { title: string; section?: string; lines: string[]; codes: { lang: string; code: string }[] }

/** A draft step → steps: its first query and command; a further query becomes a step of its own. */
export function finishStep(d: Draft, nowMs: number): ParsedStep[] {
  const text = d.lines.join('\n').replace(/\n{3,}/g, '\n\n').trim();
  const step: ParsedStep = { title: d.title, text, alerts: [], notes: [], ...(d.section === undefined ? {} : { section: d.section }) };
  const extra: ParsedStep[] = [];
  for (const { lang, code } of d.codes) {
    const c = classifyCode(lang, code, nowMs);
    if (c.kind === 'manual') {
      step.manual = step.manual ? { ...step.manual, command: `${step.manual.command}\n\n${c.manual.command}` } : c.manual;
    } else if (c.kind === 'query' && step.query === undefined) {
      step.query = c.query;
      step.signal = c.signal;
    } else if (c.kind === 'query') {
      extra.push({ title: `${d.title} (query ${extra.length + 2})`, text: '', query: c.query, signal: c.signal, alerts: [], notes: [], ...(d.section === undefined ? {} : { section: d.section }) });
    } else {
      step.text = `${step.text}${step.text === '' ? '' : '\n\n'}${code.trim()}`;
      if (c.note !== undefined) step.notes.push(c.note);
    }
  }
  // The command is in the text too: a client that reads only DESIGN §9's {title, text, query?, signal?} still sees it.
  if (step.manual) step.text = `${step.text}${step.text === '' ? '' : '\n\n'}${step.manual.command}`;
  step.alerts = extractBounds(text, { ...(step.query === undefined ? {} : { query: step.query }), ...(step.signal === undefined ? {} : { signal: step.signal }), nowMs });
  return [step, ...extra];
}

const hasContent = (d: Draft): boolean => d.codes.length > 0 || d.lines.some((l) => l.trim() !== '');

export function parseMarkdown(markdown: string, nowMs: number): ParsedPlaybook {
  const blocks = blocksOf(markdown);
  const headings = blocks.filter((b): b is Extract<Block, { type: 'heading' }> => b.type === 'heading');
  const titleHeading = headings.find((h) => h.level === 1) ?? headings[0];
  const title = titleHeading?.text || UNTITLED;
  const drafts: Draft[] = [];
  const intro: Draft = { title: 'Overview', lines: [], codes: [] };
  let section: Draft | null = null;
  let current: Draft = intro;
  for (const b of blocks) {
    if (b.type === 'heading') {
      if (b === titleHeading) continue;
      section = { title: b.text, lines: [], codes: [] };
      drafts.push(section);
      current = section;
    } else if (b.type === 'item') {
      current = { title: titleOf(b.text), lines: [b.text], codes: [], ...(section === null ? {} : { section: section.title }) };
      drafts.push(current);
    } else if (b.type === 'code') {
      current.codes.push(b);
    } else if (current !== section && current !== intro && b.indent === 0 && b.text !== '' && section !== null) {
      // Unindented prose after a list is the section's again.
      section.lines.push(b.text);
      current = section;
    } else {
      current.lines.push(b.text);
    }
  }
  const kept = [intro, ...drafts].filter((d) => d !== intro || d.codes.length > 0 || /\b(alert|page|notify)\b/i.test(d.lines.join(' ')));
  const steps = kept.filter(hasContent).flatMap((d) => finishStep(d, nowMs));
  return { title, format: 'markdown', steps };
}
