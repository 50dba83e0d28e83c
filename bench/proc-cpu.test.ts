import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statCpuMs } from './proc-cpu.js';

void test('user plus system time of a stat line, its fields counted after a name that holds spaces and parentheses', () => {
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
  const stat = '4242 (node (worker) 1) R 1 4242 4242 0 -1 4194304 120 0 0 0 731 45 0 0 20 0 12 0';
  assert.equal(statCpuMs(stat), (731 + 45) * 10);
});
