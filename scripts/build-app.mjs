#!/usr/bin/env node
// Builds the web app (web/app) into dist/web/app: type-check with its own tsconfig, then bundle with Vite.
// `--if-stale` skips the work when the build is newer than every source file (so `npm start` stays quick).
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const SRC = 'web/app';
const OUT = 'dist/web/app';
const STAMP = join(OUT, '.built');

function newest(dir) {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

if (process.argv.includes('--if-stale') && existsSync(STAMP) && statSync(STAMP).mtimeMs >= Math.max(newest(SRC), statSync('package-lock.json').mtimeMs)) {
  process.exit(0);
}
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', SRC]);
run(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', `${SRC}/vite.config.mjs`, '--logLevel', 'warn']);
writeFileSync(STAMP, new Date().toISOString() + '\n');
