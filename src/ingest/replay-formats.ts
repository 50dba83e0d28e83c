// The formats whose WAL records hold the body itself (IngestFormat.walKey, wal-raw.ts), by key: what a store that
// parses raw records again (the DuckDB worker, the WAL's own read-back) looks them up in.
import type { IngestFormat } from './format.js';
import type { ReplayFormats } from './wal-raw.js';
import { nativeFormat } from './formats/native-format.js';
import { otlpLogsFormat } from './formats/otlp-logs.js';
import { otlpTracesFormat } from './formats/otlp-traces.js';
import { otlpMetricsFormat, remoteWriteFormat } from './metrics/metrics-formats.js';

const REPLAYABLE: readonly IngestFormat[] = [nativeFormat, otlpLogsFormat, otlpTracesFormat, otlpMetricsFormat, remoteWriteFormat];

export const replayFormats: ReplayFormats = new Map(REPLAYABLE.flatMap((f) => (f.walKey === undefined ? [] : [[f.walKey, f] as const])));
