// How fast the machine runs a fixed piece of JS right now, printed beside the ingest bench's runs (issue 12: "figures
// … measured side by side in one run"). Item 1 divides the service's rate by the bare-parse rate, measured about 40 s
// earlier; on the 2-core VM of the README fifteen consecutive one-second probes read 3,663–6,761 rounds per CPU second, so
// that ratio also carries how the machine's speed moved between the two runs. The probe does not correct the ratio; it
// shows the movement, so that a reader can tell a slower service from a slower machine.
//
// The bench probes in a fresh process (probeCpuSpeedInChild): after driving a load at the service, the bench's own
// process ran this same loop ~32 % slower than a fresh process did at that moment, with nothing else running (7,069 /
// 7,953 against 10,484 / 11,874 rounds per CPU second; the service stopped, a GC run), so a probe in the bench's process
// read its own state after the load as a slower machine.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { statCpuMs } from './proc-cpu.js';

/** A clock of CPU milliseconds (a test gives its own). */
export type CpuClock = () => number;

/**
 * The CPU this thread has used, from /proc (10 ms steps: ±1 % over the probe's second): the process's own CPU would
 * count its other threads too (the garbage collector's helpers, the load generator's sockets). Elsewhere, the process's.
 */
const threadCpuMs: CpuClock = () => {
  try {
    return statCpuMs(readFileSync('/proc/thread-self/stat', 'utf8'));
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
};

/** The fixed work of one round: a branchy scan of 64 KiB, the kind of loop a JSON scanner runs. */
const BYTES = new Uint8Array(1 << 16).map((_, i) => (i * 7) & 127);

function round(): number {
  let n = 0;
  for (let i = 0; i < BYTES.length; i++) {
    const c = BYTES[i] ?? 0;
    if (c === 0x22 || c === 0x5c || c < 0x20) n++;
  }
  return n;
}

/** What the probe found: rounds per CPU second (higher is faster), the rounds, and the sum of their results (kept, so that the work is not elided). */
export interface CpuSpeed {
  roundsPerCpuSecond: number;
  rounds: number;
  checksum: number;
}

/** Runs rounds until `cpuMs` of CPU have gone by on `clock`, and gives their rate. Run it with nothing else running. */
export function probeCpuSpeed(cpuMs = 1000, clock: CpuClock = threadCpuMs, work: () => number = round): CpuSpeed {
  const start = clock();
  let rounds = 0;
  let checksum = 0;
  let used: number;
  do {
    checksum = (checksum + work()) | 0;
    rounds++;
    used = clock() - start;
  } while (used < cpuMs);
  return { roundsPerCpuSecond: (rounds * 1000) / used, rounds, checksum };
}

/** probeCpuSpeed() in a fresh node process of its own, which carries no state of the caller's (see the top). */
export function probeCpuSpeedInChild(cpuMs = 1000): CpuSpeed {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), String(cpuMs)], { encoding: 'utf8' });
  return JSON.parse(out) as CpuSpeed;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(JSON.stringify(probeCpuSpeed(Number(process.argv[2] ?? 1000))));
}
