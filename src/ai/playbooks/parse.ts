// A runbook's text → a ParsedPlaybook in the format it is in (DESIGN §9: `format?: "markdown" | "yaml"`). Without
// a format, a document that is a YAML mapping with a `steps` list is YAML and anything else is Markdown (a Markdown
// runbook is seldom a YAML mapping: its headings are YAML comments). A runbook with no steps is refused.
import { parseDocument } from 'yaml';
import { AiUnprocessable } from '../model.js';
import { parseMarkdown } from './markdown.js';
import { parseYaml } from './yaml.js';
import type { ParsedPlaybook } from './model.js';

export type PlaybookFormatName = 'markdown' | 'yaml';

export function detectFormat(content: string): PlaybookFormatName {
  const doc = parseDocument(content);
  if (doc.errors.length > 0) return 'markdown';
  const root: unknown = doc.toJS();
  return typeof root === 'object' && root !== null && !Array.isArray(root) && Array.isArray((root as Record<string, unknown>).steps) ? 'yaml' : 'markdown';
}

export function parsePlaybook(content: string, format: PlaybookFormatName | undefined, nowMs: number): ParsedPlaybook {
  if (content.trim() === '') throw new AiUnprocessable('the playbook is empty');
  const parsed = (format ?? detectFormat(content)) === 'yaml' ? parseYaml(content, nowMs) : parseMarkdown(content, nowMs);
  if (parsed.steps.length === 0) {
    throw new AiUnprocessable('the playbook has no steps: give it `##` headings or a numbered list (Markdown), or a steps list (YAML)');
  }
  return parsed;
}
