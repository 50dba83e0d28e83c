// Composition root (STYLE.md layout): load config → open stores → build both front doors → listen →
// stop cleanly. The only file that names concrete backends (STYLE.md habit 2).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig, ConfigError, type Config } from './config.js';
import { ServiceClock } from './clock.js';
import { openControlStore } from './stores/control/open-control-store.js';
import { openDuckdbWorkerStore } from './stores/telemetry/duckdb/worker-store.js';
import { openClickhouseTarget } from './stores/telemetry/clickhouse/connect.js';
import { openWal } from './ingest/wal.js';
import { buildService, type Service } from './service.js';
import { ensureAdminToken } from './bootstrap.js';

const print = (line: string): void => {
  process.stdout.write(line + '\n');
};
const log = (line: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
};

async function serve(config: Config): Promise<void> {
  await mkdir(config.dataDir, { recursive: true });
  const adminToken = await ensureAdminToken(config.dataDir, config.adminToken, print);
  const clock = new ServiceClock();
  const control = await openControlStore({ url: config.controlDb, dataDir: config.dataDir, clock });
  // DESIGN §10: unset → DuckDB in the data dir; http(s):// → a ClickHouse server; chdb:<dir> → ClickHouse in-process.
  const telemetry = config.telemetryDb === undefined
    ? await openDuckdbWorkerStore(join(config.dataDir, 'telemetry.duckdb'))
    : await openClickhouseTarget(config.telemetryDb, config.dataDir);
  const wal = await openWal({ dir: join(config.dataDir, 'wal'), store: telemetry, maxBytes: config.walMaxBytes, onError: (e) => log(`wal: ${String(e)}`) });
  const service: Service = buildService({ config, adminToken, clock, control, telemetry, wal, print, log });
  await service.listen();

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping (finishing in-flight requests, flushing the WAL and counters)`);
    service.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        log(`stop failed: ${String(e)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command !== 'serve') {
    print('usage: sightline serve [--ingest-port N] [--app-port N] [--host H] [--data-dir DIR] [--role all|ingest|app] …');
    process.exit(2);
  }
  let config: Config;
  try {
    config = loadConfig(rest, process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`sightline: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  await serve(config);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`sightline: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
