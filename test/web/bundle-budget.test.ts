// DESIGN §7 Speed: no page pulls more than 300 kB of compressed script before it is interactive. A page's
// script before interactive is the entry chunk, the page's own chunk and every chunk they import statically
// (dynamic imports load later, on demand). Read from Vite's manifest of the built app; sizes are gzip -9,
// as the service sends them (src/planes/web-plane.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const APP = join(process.cwd(), 'dist', 'web', 'app');
const MANIFEST = join(APP, '.vite', 'manifest.json');
const BUDGET = 300_000;

interface Chunk { file: string; imports?: string[]; isEntry?: boolean; isDynamicEntry?: boolean; src?: string }

const gz = (file: string): number => gzipSync(readFileSync(join(APP, file)), { level: 9 }).length;

test('every page loads at most 300 kB of compressed script before it is interactive', { skip: existsSync(MANIFEST) ? false : 'the app is not built' }, () => {
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, Chunk>;
  const entry = Object.entries(manifest).find(([, c]) => c.isEntry === true);
  assert.ok(entry, 'the manifest names an entry');
  const closure = (key: string, seen: Set<string>): Set<string> => {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const dep of manifest[key]?.imports ?? []) closure(dep, seen);
    return seen;
  };
  const pages = Object.entries(manifest).filter(([, c]) => c.isDynamicEntry === true && /\/pages\//.test(c.src ?? ''));
  assert.ok(pages.length >= 7, 'one chunk per page');
  const lines: string[] = [];
  for (const [key] of pages) {
    const keys = closure(key, closure(entry[0], new Set()));
    const bytes = [...keys].reduce((sum, k) => sum + gz(manifest[k]?.file ?? ''), 0);
    lines.push(`${key.replace(/^.*\//, '').padEnd(22)} ${(bytes / 1000).toFixed(1).padStart(7)} kB`);
    assert.ok(bytes <= BUDGET, `${key}: ${bytes} bytes of compressed script before interactive, over ${BUDGET}`);
  }
  console.log(`compressed script before interactive, per page:\n${lines.join('\n')}`);
});
