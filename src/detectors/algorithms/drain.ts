// Drain: online log template mining with a fixed-depth parse tree (He, Zhu, Zheng & Lyu, "Drain: An Online Log
// Parsing Approach with Fixed Depth Tree", ICWS 2017, https://jiemingzhu.github.io/pub/pjhe_icws2017.pdf), as
// Drain3 implements it (https://github.com/logpai/Drain3, drain.py). A masked, tokenized line walks the tree: the
// first layer by token count, then `depth − 3` layers by its leading tokens (a token holding a digit, or one that
// finds its layer full at `maxChildren`, goes down the `<*>` branch), to a leaf holding a few templates. The line
// joins the most similar template of that leaf when the similarity reaches the threshold, and the positions where
// they differ become `<*>`; otherwise it starts a new template.
//
// Similarity is the share of positions where the template has the line's token or a `<*>`. The paper counts only
// equal tokens; Drain3 counts wildcards too when matching against a learnt model (`match(…, "always")`). We count
// them always, so a template read back from stored state is found again by every line it was learnt from — the
// property that makes "first seen" durable (issue 9 notes: an evicted pattern must not come back "new").
import { maskMessage, tokenize } from './log-masking.js';

export const WILDCARD = '<*>';

export interface DrainOptions {
  /** Tree depth counting root and leaf (Drain3 default 4: root, token count, first token, leaf). At least 3. */
  depth: number;
  /** Similarity a line needs to join a template (Drain3 default 0.4). */
  similarity: number;
  /** Children per internal node before further tokens share the `<*>` branch (Drain3 default 100). */
  maxChildren: number;
}

export const DEFAULT_DRAIN: DrainOptions = { depth: 4, similarity: 0.4, maxChildren: 100 };

export interface Template {
  id: number;
  tokens: string[];
  /** Lines that joined it since it was created or seeded. */
  size: number;
}

interface Node {
  children: Map<string, Node>;
  templates: Template[];
}

const newNode = (): Node => ({ children: new Map(), templates: [] });
const hasDigit = (t: string): boolean => /\d/.test(t);

export class Drain {
  private readonly root = newNode();
  private readonly all: Template[] = [];
  private readonly opts: DrainOptions;

  constructor(opts: Partial<DrainOptions> = {}) {
    this.opts = { ...DEFAULT_DRAIN, ...opts };
    if (this.opts.depth < 3) throw new RangeError('Drain depth must be at least 3');
  }

  /** Learns one raw message; returns its template and whether the template is new. */
  add(msg: string): { template: Template; created: boolean } {
    return this.addTokens(tokenize(maskMessage(msg)));
  }

  /** Puts a known template (tokens already masked and wildcarded, e.g. read back from state) into the tree. */
  seed(template: string): Template {
    const tokens = tokenize(template);
    const found = this.search(tokens, 1);
    if (found) return found;
    return this.insert(tokens, 0);
  }

  /** The template a raw message would join, without learning from it; null when it would start a new one. */
  match(msg: string): Template | null {
    return this.search(tokenize(maskMessage(msg)), this.opts.similarity);
  }

  templates(): readonly Template[] {
    return this.all;
  }

  private addTokens(tokens: string[]): { template: Template; created: boolean } {
    const found = this.search(tokens, this.opts.similarity);
    if (!found) return { template: this.insert(tokens, 1), created: true };
    for (let i = 0; i < tokens.length; i++) if (found.tokens[i] !== tokens[i]) found.tokens[i] = WILDCARD;
    found.size++;
    return { template: found, created: false };
  }

  /** Drain3 tree_search: exact token child, else `<*>` child, down to the leaf; then the best template there. */
  private search(tokens: readonly string[], threshold: number): Template | null {
    let node = this.root.children.get(String(tokens.length));
    if (!node) return null;
    const maxDepth = this.opts.depth - 2;
    for (let depth = 1; depth < maxDepth && depth < tokens.length; depth++) {
      const token = tokens[depth - 1] ?? '';
      const next: Node | undefined = node.children.get(token) ?? node.children.get(WILDCARD);
      if (!next) return null;
      node = next;
    }
    let best: Template | null = null;
    let bestSim = -1;
    let bestWild = -1;
    for (const t of node.templates) {
      const [sim, wild] = similarity(t.tokens, tokens);
      // Ties go to the template with more wildcards, the more general one (Drain3 fast_match).
      if (sim > bestSim || (sim === bestSim && wild > bestWild)) [best, bestSim, bestWild] = [t, sim, wild];
    }
    return best && bestSim >= threshold ? best : null;
  }

  /** Drain3 add_seq_to_prefix_tree. */
  private insert(tokens: string[], size: number): Template {
    const template: Template = { id: this.all.length + 1, tokens: [...tokens], size };
    this.all.push(template);
    const lengthKey = String(tokens.length);
    let node = this.root.children.get(lengthKey);
    if (!node) this.root.children.set(lengthKey, (node = newNode()));
    const maxDepth = this.opts.depth - 2;
    for (let depth = 1; depth < maxDepth && depth < tokens.length; depth++) {
      node = this.child(node, tokens[depth - 1] ?? '');
    }
    node.templates.push(template);
    return template;
  }

  private child(node: Node, token: string): Node {
    const existing = node.children.get(token);
    if (existing) return existing;
    const { children } = node;
    const wildcard = (): Node => {
      let w = children.get(WILDCARD);
      if (!w) children.set(WILDCARD, (w = newNode()));
      return w;
    };
    if (hasDigit(token)) return wildcard();
    // Keep one slot for `<*>`, so the layer never fills up with tokens that then have nowhere to go.
    const limit = children.has(WILDCARD) ? this.opts.maxChildren : this.opts.maxChildren - 1;
    if (children.size < limit) {
      const n = newNode();
      children.set(token, n);
      return n;
    }
    return wildcard();
  }
}

/** [share of positions that agree (equal, or `<*>` in the template), number of wildcards]. */
function similarity(template: readonly string[], tokens: readonly string[]): [number, number] {
  if (template.length !== tokens.length) return [0, 0];
  if (tokens.length === 0) return [1, 0];
  let same = 0;
  let wild = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = template[i];
    if (t === WILDCARD) {
      wild++;
      same++;
    } else if (t === tokens[i]) same++;
  }
  return [same / tokens.length, wild];
}

export const templateText = (t: Template): string => t.tokens.join(' ');
