// One run of a command-line tool (grep, jq) for the benchmarks: wall time from spawn to exit, and what it printed.
import { spawn } from 'node:child_process';

export interface CommandRun {
  ms: number;
  stdout: string;
}

/** Runs `cmd args`; exit status 1 is grep's "no match", not a failure. */
export function timeCommand(cmd: string, args: string[], env: Record<string, string> = {}): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0 && code !== 1) reject(new Error(`${cmd} exited ${code}: ${Buffer.concat(err).toString().slice(0, 300)}`));
      else resolve({ ms, stdout: Buffer.concat(out).toString() });
    });
  });
}
