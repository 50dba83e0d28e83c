#!/usr/bin/env node
// Runs every compiled test file (dist/**/*.test.js) with Node's own test runner.
// Node 20 takes no globs on --test, so the files are listed here.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const filter = process.argv[2] ? new RegExp(process.argv[2]) : null;
function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js') && (!filter || filter.test(p))) out.push(p);
  }
  return out;
}
const files = walk('dist', []).sort();
if (files.length === 0) { console.error('no test files found under dist/'); process.exit(1); }
// ClickHouse (chdb) renders DateTime in the host zone; the tests pin UTC so no answer depends on where they run.
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-reporter=spec', ...files], { stdio: 'inherit', env: { ...process.env, TZ: 'UTC' } });
process.exit(r.status ?? 1);
