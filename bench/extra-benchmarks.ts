// Further figures printed after the native NDJSON one: other wire formats through the same service.
import type { RunningService, TestAccount } from '../test/support/service.js';
import type { LoadResult } from './load.js';

export interface ExtraContext {
  svc: RunningService;
  acct: TestAccount;
  seconds: number;
  connections: number;
  line: (label: string, r: LoadResult) => string;
}

export async function extraBenchmarks(_ctx: ExtraContext): Promise<void> {
  // OTLP protobuf logs, remote write and OTLP metrics join here as their formats land.
  return Promise.resolve();
}
