// Prometheus / vmalert rule files (https://prometheus.io/docs/prometheus/latest/configuration/recording_rules/#rule-file-format
// and https://docs.victoriametrics.com/victoriametrics/vmalert/#groups): YAML `groups: [{name, interval?, type?,
// labels?, rules: [{alert | record, expr, for?, keep_firing_for?, labels?, annotations?}]}]`. vmalert takes several
// YAML documents in one file and a group `type` (`prometheus` by default, `vlogs` for LogsQL). This reads the file
// into plain records that keep each rule's line; anything malformed is a RuleFileError naming the line.
import { isMap, isSeq, LineCounter, parseAllDocuments, type Document, type Node } from 'yaml';

export type GroupType = 'prometheus' | 'vlogs';

export interface RuleEntry {
  /** Set for an alerting rule. */
  alert?: string;
  /** Set for a recording rule. */
  record?: string;
  expr: string;
  for?: string;
  keepFiringFor?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** 1-based line of the rule in the file. */
  line: number;
}

export interface RuleGroup {
  name: string;
  type: GroupType;
  /** The group's evaluation interval as written (`1m`); absent: the evaluator's default. */
  interval?: string;
  /** vmalert and Prometheus 3 group labels, added to every rule's. */
  labels: Record<string, string>;
  rules: RuleEntry[];
  line: number;
}

export class RuleFileError extends Error {
  constructor(readonly line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.name = 'RuleFileError';
  }
}

/** Keeps a rule file's positions: node → 1-based line. */
class Lines {
  constructor(private readonly counter: LineCounter) {}

  of(node: Node | null | undefined, fallback = 1): number {
    const at = node?.range?.[0];
    return at === undefined ? fallback : this.at(at);
  }

  at(offset: number): number {
    return this.counter.linePos(offset).line;
  }
}

function fail(line: number, message: string): never {
  throw new RuleFileError(line, message);
}

/** The value at `key` of a mapping node, with its node (for the line). */
function entry(map: Node, key: string): { node: Node | undefined; value: unknown } {
  if (!isMap(map)) return { node: undefined, value: undefined };
  const pair = map.items.find((p) => (p.key as { value?: unknown } | null)?.value === key);
  const node = (pair?.value ?? undefined) as Node | undefined;
  return { node, value: node?.toJSON() as unknown };
}

function text(map: Node, key: string, lines: Lines, where: number, required: boolean): string | undefined {
  const { node, value } = entry(map, key);
  if (value === undefined || value === null) {
    if (required) fail(where, `${key} is required`);
    return undefined;
  }
  if (typeof value === 'number' && key !== 'expr') return String(value);
  if (typeof value !== 'string' && typeof value !== 'number') fail(lines.of(node, where), `${key} must be a string`);
  return String(value);
}

function strings(map: Node, key: string, lines: Lines, where: number): Record<string, string> {
  const { node, value } = entry(map, key);
  if (value === undefined || value === null) return {};
  if (!isMap(node)) fail(lines.of(node, where), `${key} must be a mapping of names to strings`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else fail(lines.of(node, where), `${key}.${k} must be a string`);
  }
  return out;
}

function rule(node: Node, lines: Lines): RuleEntry {
  const line = lines.of(node);
  if (!isMap(node)) fail(line, 'a rule must be a mapping with alert (or record) and expr');
  const alert = text(node, 'alert', lines, line, false);
  const record = text(node, 'record', lines, line, false);
  if (alert === undefined && record === undefined) fail(line, 'a rule needs alert (an alerting rule) or record (a recording rule)');
  if (alert !== undefined && record !== undefined) fail(line, 'a rule has either alert or record, not both');
  const expr = text(node, 'expr', lines, line, true) ?? '';
  const out: RuleEntry = {
    expr, labels: strings(node, 'labels', lines, line), annotations: strings(node, 'annotations', lines, line), line,
  };
  if (alert !== undefined) out.alert = alert;
  if (record !== undefined) out.record = record;
  const f = text(node, 'for', lines, line, false);
  if (f !== undefined) out.for = f;
  const k = text(node, 'keep_firing_for', lines, line, false);
  if (k !== undefined) out.keepFiringFor = k;
  return out;
}

function group(node: Node, lines: Lines): RuleGroup {
  const line = lines.of(node);
  if (!isMap(node)) fail(line, 'a group must be a mapping with name and rules');
  const name = text(node, 'name', lines, line, true) ?? '';
  const typeText = text(node, 'type', lines, line, false) ?? 'prometheus';
  if (typeText !== 'prometheus' && typeText !== 'vlogs') {
    fail(lines.of(entry(node, 'type').node, line), `group ${JSON.stringify(name)}: type ${JSON.stringify(typeText)} is not one Sightline runs (prometheus or vlogs)`);
  }
  const rulesNode = entry(node, 'rules').node;
  if (rulesNode !== undefined && !isSeq(rulesNode)) fail(lines.of(rulesNode, line), `group ${JSON.stringify(name)}: rules must be a list`);
  const out: RuleGroup = {
    name, type: typeText, labels: strings(node, 'labels', lines, line),
    rules: rulesNode ? rulesNode.items.map((r) => rule(r as Node, lines)) : [], line,
  };
  const interval = text(node, 'interval', lines, line, false);
  if (interval !== undefined) out.interval = interval;
  return out;
}

/** Every group of every YAML document in the file, in order. */
export function parseRuleFile(source: string): RuleGroup[] {
  const counter = new LineCounter();
  const lines = new Lines(counter);
  const docs: Document.Parsed[] = parseAllDocuments(source, { lineCounter: counter, prettyErrors: false }) as Document.Parsed[];
  const groups: RuleGroup[] = [];
  for (const doc of docs) {
    const problem = doc.errors[0];
    if (problem) fail(lines.at(problem.pos[0]), `not YAML: ${problem.message.split('\n')[0] ?? ''}`);
    const root = doc.contents as Node | null;
    if (root === null) continue; // an empty document
    if (!isMap(root)) fail(lines.of(root), 'a rule file is a mapping with groups');
    const g = entry(root, 'groups').node;
    if (g === undefined) fail(lines.of(root), 'groups is required');
    if (!isSeq(g)) fail(lines.of(g), 'groups must be a list');
    for (const item of g.items) groups.push(group(item as Node, lines));
  }
  const seen = new Map<string, number>();
  for (const g of groups) {
    const first = seen.get(g.name);
    if (first !== undefined) fail(g.line, `group name ${JSON.stringify(g.name)} repeated (first on line ${first})`);
    seen.set(g.name, g.line);
  }
  return groups;
}
