import { test } from 'node:test';
import assert from 'node:assert/strict';
import { probeCpuSpeed, probeCpuSpeedInChild } from './cpu-probe.js';

void test('the probe runs rounds until the CPU time asked for has gone by, and gives rounds per CPU second', () => {
  let cpuMs = 0;
  let rounds = 0;
  // Each round takes 7 ms of CPU on this clock: 1,000 ms take 143 rounds (1,001 ms), 142.86 a second.
  const probe = probeCpuSpeed(1000, () => cpuMs, () => {
    cpuMs += 7;
    rounds++;
    return 3;
  });
  assert.equal(rounds, 143);
  assert.equal(probe.checksum, 429);
  assert.equal(probe.roundsPerCpuSecond, (143 * 1000) / 1001);
});

void test('a slower machine gives a lower figure, and one round is always run', () => {
  const at = (msPerRound: number): number => {
    let cpuMs = 0;
    return probeCpuSpeed(100, () => cpuMs, () => { cpuMs += msPerRound; return 0; }).roundsPerCpuSecond;
  };
  assert.ok(at(2) > at(5));
  assert.equal(at(500), 2, 'one round of 500 ms: 2 a second');
});

void test('the real work is the fixed scan, every round', () => {
  // The bytes the scan counts in its 64 KiB, (i * 7) & 127 at i: a quote, a backslash or a control character.
  let perRound = 0;
  for (let i = 0; i < 1 << 16; i++) {
    const c = (i * 7) & 127;
    if (c === 0x22 || c === 0x5c || c < 0x20) perRound++;
  }
  const probe = probeCpuSpeed(5);
  assert.ok(probe.rounds >= 1);
  assert.equal(probe.checksum, (probe.rounds * perRound) | 0);
  assert.ok(probe.roundsPerCpuSecond > 0 && Number.isFinite(probe.roundsPerCpuSecond));
});

void test('the probe in a child process runs the same scan there and gives its figures back', () => {
  const probe = probeCpuSpeedInChild(20);
  assert.ok(probe.rounds >= 1);
  assert.ok(probe.roundsPerCpuSecond > 0 && Number.isFinite(probe.roundsPerCpuSecond));
  // The checksum shows the child ran the real scan: the same count per round as here.
  const here = probeCpuSpeed(5);
  assert.equal(probe.checksum, ((here.checksum / here.rounds) * probe.rounds) | 0);
});
