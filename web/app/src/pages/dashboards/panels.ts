// The dashboard panel schema (DESIGN §7 Dashboards; the API stores `panels` as the app's own JSON, see
// src/query/dashboards-api.ts), its validation for stored and imported JSON, the export document, and the grid
// layout: 12 columns, panels placed by x/y/w/h and kept from overlapping with "gravity" (each panel rises until
// something stops it), so moving one by keyboard swaps it with its neighbour.
//
// Panel, version 1:
//   {version: 1, id, title, type: 'logs_hits'|'logs_stats'|'promql', query, x, y, w, h, display?: 'table'|'bars'}
// Export document: {version: 1, title, panels: Panel[]}.

export const PANEL_VERSION = 1;
export const COLUMNS = 12;
export const MIN_W = 2;
export const MIN_H = 2;
export const MAX_H = 16;
export const MAX_PANELS = 100;
const MAX_TITLE = 256;

export type PanelType = 'logs_hits' | 'logs_stats' | 'promql';
export type StatsDisplay = 'table' | 'bars';

export interface Panel {
  version: 1;
  id: string;
  title: string;
  type: PanelType;
  query: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** logs_stats only: a table of the rows, or bars of the last numeric column. */
  display?: StatsDisplay;
}

export const PANEL_TYPES: readonly { type: PanelType; label: string; example: string }[] = [
  { type: 'logs_hits', label: 'LogsQL hits', example: 'level:error' },
  { type: 'logs_stats', label: 'LogsQL stats', example: '* | stats by (level) count() as entries' },
  { type: 'promql', label: 'PromQL', example: 'sum by (job) (rate(http_requests_total[5m]))' },
];

export const typeLabel = (t: PanelType): string => PANEL_TYPES.find((p) => p.type === t)?.label ?? t;

export interface DashboardDoc {
  title: string;
  panels: Panel[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** One panel checked against version 1; every problem named with its path (`panels[2].w …`). */
function readPanel(v: unknown, at: string, problems: string[]): Panel | null {
  if (!isObject(v)) {
    problems.push(`${at} must be an object`);
    return null;
  }
  const before = problems.length;
  if (v.version !== PANEL_VERSION) problems.push(`${at}.version must be ${PANEL_VERSION}`);
  if (typeof v.id !== 'string' || v.id === '') problems.push(`${at}.id must be a non-empty string`);
  if (typeof v.title !== 'string' || v.title.length > MAX_TITLE) problems.push(`${at}.title must be a string of at most ${MAX_TITLE} characters`);
  if (!PANEL_TYPES.some((p) => p.type === v.type)) problems.push(`${at}.type must be one of ${PANEL_TYPES.map((p) => p.type).join(', ')}`);
  if (typeof v.query !== 'string' || v.query.trim() === '') problems.push(`${at}.query must be a non-empty string`);
  const w = isInt(v.w) && v.w >= MIN_W && v.w <= COLUMNS ? v.w : null;
  if (w === null) problems.push(`${at}.w must be a whole number from ${MIN_W} to ${COLUMNS}`);
  if (!isInt(v.x) || v.x < 0 || (w !== null && v.x + w > COLUMNS)) problems.push(`${at}.x must be a whole number ≥ 0 with x + w ≤ ${COLUMNS}`);
  if (!isInt(v.y) || v.y < 0 || v.y > 10_000) problems.push(`${at}.y must be a whole number from 0 to 10000`);
  if (!isInt(v.h) || v.h < MIN_H || v.h > MAX_H) problems.push(`${at}.h must be a whole number from ${MIN_H} to ${MAX_H}`);
  if (v.display !== undefined && v.display !== 'table' && v.display !== 'bars') problems.push(`${at}.display must be "table" or "bars"`);
  if (problems.length > before) return null;
  const p: Panel = {
    version: 1, id: v.id as string, title: v.title as string, type: v.type as PanelType, query: v.query as string,
    x: v.x as number, y: v.y as number, w: v.w as number, h: v.h as number,
  };
  if (v.display === 'table' || v.display === 'bars') p.display = v.display;
  return p;
}

/** A `panels` array: the panels that read, and what is wrong with the others. */
export function readPanels(v: unknown, at = 'panels'): { panels: Panel[]; problems: string[] } {
  const problems: string[] = [];
  if (!Array.isArray(v)) return { panels: [], problems: [`${at} must be an array`] };
  if (v.length > MAX_PANELS) problems.push(`${at} holds ${v.length} panels; at most ${MAX_PANELS}`);
  const panels: Panel[] = [];
  const ids = new Set<string>();
  v.slice(0, MAX_PANELS).forEach((item, i) => {
    const p = readPanel(item, `${at}[${i}]`, problems);
    if (!p) return;
    if (ids.has(p.id)) {
      problems.push(`${at}[${i}].id "${p.id}" is used by an earlier panel`);
      return;
    }
    ids.add(p.id);
    panels.push(p);
  });
  return { panels: compact(panels), problems };
}

/**
 * Pasted or uploaded JSON: the export document `{version, title, panels}`, or the API's `{dashboard: {…}}`.
 * Either the dashboard, or every problem found.
 */
export function parseDashboardJson(text: string): { doc: DashboardDoc; problems: [] } | { doc: null; problems: string[] } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { doc: null, problems: [`Not JSON: ${e instanceof Error ? e.message : String(e)}`] };
  }
  if (isObject(v) && isObject(v.dashboard)) v = v.dashboard;
  if (!isObject(v)) return { doc: null, problems: ['The JSON must be an object with title and panels'] };
  const problems: string[] = [];
  if (v.version !== undefined && v.version !== PANEL_VERSION) problems.push(`version must be ${PANEL_VERSION} (this app reads version ${PANEL_VERSION} dashboards)`);
  const title = typeof v.title === 'string' ? v.title.trim() : '';
  if (title === '' || title.length > MAX_TITLE) problems.push(`title must be a non-empty string of at most ${MAX_TITLE} characters`);
  const read = readPanels(v.panels ?? null);
  problems.push(...read.problems);
  if (problems.length > 0) return { doc: null, problems };
  return { doc: { title, panels: read.panels }, problems: [] };
}

export const exportJson = (d: DashboardDoc): string => `${JSON.stringify({ version: PANEL_VERSION, title: d.title, panels: d.panels }, null, 2)}\n`;

const overlaps = (a: Panel, b: Panel): boolean => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const sideBySide = (a: Panel, b: Panel): boolean => a.x < b.x + b.w && b.x < a.x + a.w;

/**
 * Resolves overlaps and gaps: panels in reading order (`first` wins ties), each pushed below what it overlaps,
 * then raised as far as it goes. The result is in reading order, which is also the keyboard order.
 */
export function compact(panels: Panel[], first?: string): Panel[] {
  const order = [...panels].sort((a, b) => a.y - b.y || (a.id === first ? -1 : b.id === first ? 1 : 0) || a.x - b.x);
  const placed: Panel[] = [];
  for (const p of order) {
    const at = { ...p };
    for (let hit = placed.find((q) => overlaps(at, q)); hit; hit = placed.find((q) => overlaps(at, q))) at.y = hit.y + hit.h;
    while (at.y > 0 && !placed.some((q) => overlaps({ ...at, y: at.y - 1 }, q))) at.y -= 1;
    placed.push(at);
  }
  return placed.sort((a, b) => a.y - b.y || a.x - b.x);
}

export type Move = 'up' | 'down' | 'left' | 'right';
export type Resize = 'wider' | 'narrower' | 'taller' | 'shorter';

/** Moves a panel one place: up/down swap it with the panel above/below it, left/right shift it a column (or swap). */
export function movePanel(panels: Panel[], id: string, dir: Move): Panel[] {
  const p = panels.find((q) => q.id === id);
  if (!p) return panels;
  const others = panels.filter((q) => q.id !== id);
  if (dir === 'up' || dir === 'down') {
    const column = others.filter((q) => sideBySide(p, q));
    const next = dir === 'up'
      ? column.filter((q) => q.y + q.h <= p.y).sort((a, b) => b.y + b.h - (a.y + a.h))[0]
      : column.filter((q) => q.y >= p.y + p.h).sort((a, b) => a.y - b.y)[0];
    if (!next) return panels;
    // Up: take the neighbour's row and win the tie; down: sit just under the neighbour's top so it rises first.
    return compact([...others, { ...p, y: dir === 'up' ? next.y : next.y + 1 }], dir === 'up' ? id : next.id);
  }
  const x = Math.min(COLUMNS - p.w, Math.max(0, p.x + (dir === 'left' ? -1 : 1)));
  if (x === p.x) return panels;
  const moved = { ...p, x };
  const hit = others.find((q) => overlaps(moved, q));
  if (!hit) return compact([...others, moved], id);
  // A neighbour in the way: trade places with it along the row.
  const swapped = dir === 'right'
    ? [{ ...p, x: hit.x + hit.w - p.w }, { ...hit, x: p.x }]
    : [{ ...p, x: hit.x }, { ...hit, x: p.x + p.w - hit.w }];
  return compact([...others.filter((q) => q.id !== hit.id), ...swapped], id);
}

export function resizePanel(panels: Panel[], id: string, how: Resize): Panel[] {
  const p = panels.find((q) => q.id === id);
  if (!p) return panels;
  const r = { ...p };
  if (how === 'wider' && r.w < COLUMNS) {
    r.w += 1;
    if (r.x + r.w > COLUMNS) r.x -= 1;
  } else if (how === 'narrower' && r.w > MIN_W) r.w -= 1;
  else if (how === 'taller' && r.h < MAX_H) r.h += 1;
  else if (how === 'shorter' && r.h > MIN_H) r.h -= 1;
  else return panels;
  return compact([...panels.filter((q) => q.id !== id), r], id);
}

/** The same layout (ids, places, sizes), for disabling moves that change nothing. */
export const sameLayout = (a: Panel[], b: Panel[]): boolean =>
  a.length === b.length && a.every((p) => b.some((q) => q.id === p.id && q.x === p.x && q.y === p.y && q.w === p.w && q.h === p.h));

/** A new panel of `type` in the first free place of its size, reading order. */
export function newPanel(panels: Panel[], type: PanelType = 'logs_hits'): Panel {
  const id = `p${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const base: Panel = { version: 1, id, title: 'New panel', type, query: '', x: 0, y: 0, w: 6, h: 4 };
  const bottom = panels.reduce((m, p) => Math.max(m, p.y + p.h), 0);
  for (let y = 0; y <= bottom; y++) {
    for (let x = 0; x + base.w <= COLUMNS; x++) {
      const at = { ...base, x, y };
      if (!panels.some((p) => overlaps(at, p))) return at;
    }
  }
  return { ...base, y: bottom };
}
