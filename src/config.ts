// Every setting of DESIGN §2, read once from flags and environment, validated, frozen.
// A bad value stops start-up with a message that names the setting.

export type Role = 'all' | 'ingest' | 'app';

export interface Config {
  readonly role: Role;
  readonly host: string;
  readonly ingestPort: number;
  readonly appPort: number;
  readonly dataDir: string;
  /** From SIGHTLINE_ADMIN_TOKEN; undefined → generated and stored in <data>/admin-token. */
  readonly adminToken: string | undefined;
  /** The spec's `max_body_size_mb`, in bytes (MiB, DESIGN §6 Units). */
  readonly maxBodyBytes: number;
  readonly keyCacheTtlMs: number;
  readonly sweepIntervalMs: number;
  readonly walMaxBytes: number;
  /** Platform-wide limiter, entries/s (spec, Ingest rate 6). */
  readonly platformRate: number;
  readonly testClock: boolean;
  /** postgres://… → PostgreSQL; undefined → PGlite under <data>/control. */
  readonly controlDb: string | undefined;
  /**
   * DESIGN §10: http(s)://[user:password@]host:port[/db] → a ClickHouse server; chdb:<dir> → the ClickHouse engine
   * in-process (a relative dir is inside the data dir); undefined → DuckDB at <data>/telemetry.duckdb.
   */
  readonly telemetryDb: string | undefined;
  /** Split roles (DESIGN §1): where the other plane lives. */
  readonly appUpstream: string | undefined;
  readonly ingestUpstream: string | undefined;
  /** Optional secret for x-vercel-signature checks on the Vercel drain. */
  readonly vercelDrainSecret: string | undefined;
  /** Optional token echoed in x-vercel-verify for Vercel's endpoint verification. */
  readonly vercelVerifyToken: string | undefined;
  /** Browser sessions (DESIGN §7): idle life past the last use, and the most a session lives. */
  readonly sessionIdleMs: number;
  readonly sessionMaxMs: number;
  /** Notification delivery (DESIGN §8): the first retry's wait (doubling to 10 min), and a post's timeout. */
  readonly notifyRetryBaseMs: number;
  readonly notifyTimeoutMs: number;
  /** Detectors (DESIGN §8): how often they are evaluated on service time; 0 = only POST /admin/v1/detectors/evaluate. */
  readonly evalIntervalMs: number;
  /** The optional model of the AI features (DESIGN §9): an OpenAI-compatible chat completions URL; unset → none. */
  readonly llmUrl: string | undefined;
  readonly llmModel: string;
  readonly llmApiKey: string | undefined;
  readonly llmTimeoutMs: number;
}

export class ConfigError extends Error {
  constructor(setting: string, message: string) {
    super(`invalid setting ${setting}: ${message}`);
    this.name = 'ConfigError';
  }
}

interface Setting {
  flag: string;
  env: string;
}

const S = {
  role: { flag: '--role', env: 'SIGHTLINE_ROLE' },
  host: { flag: '--host', env: 'SIGHTLINE_HOST' },
  ingestPort: { flag: '--ingest-port', env: 'SIGHTLINE_INGEST_PORT' },
  appPort: { flag: '--app-port', env: 'SIGHTLINE_APP_PORT' },
  dataDir: { flag: '--data-dir', env: 'SIGHTLINE_DATA_DIR' },
  adminToken: { flag: '--admin-token', env: 'SIGHTLINE_ADMIN_TOKEN' },
  maxBody: { flag: '--max-body-size-mb', env: 'SIGHTLINE_MAX_BODY_SIZE_MB' },
  keyCacheTtl: { flag: '--key-cache-ttl-ms', env: 'SIGHTLINE_KEY_CACHE_TTL_MS' },
  sweepInterval: { flag: '--sweep-interval-ms', env: 'SIGHTLINE_SWEEP_INTERVAL_MS' },
  walMax: { flag: '--wal-max-mb', env: 'SIGHTLINE_WAL_MAX_MB' },
  platformRate: { flag: '--platform-rate', env: 'SIGHTLINE_PLATFORM_RATE' },
  testClock: { flag: '--test-clock', env: 'SIGHTLINE_TEST_CLOCK' },
  controlDb: { flag: '--control-db', env: 'SIGHTLINE_CONTROL_DB' },
  telemetryDb: { flag: '--telemetry-db', env: 'SIGHTLINE_TELEMETRY_DB' },
  appUpstream: { flag: '--app-upstream', env: 'SIGHTLINE_APP_UPSTREAM' },
  ingestUpstream: { flag: '--ingest-upstream', env: 'SIGHTLINE_INGEST_UPSTREAM' },
  vercelSecret: { flag: '--vercel-drain-secret', env: 'SIGHTLINE_VERCEL_DRAIN_SECRET' },
  vercelVerify: { flag: '--vercel-verify-token', env: 'SIGHTLINE_VERCEL_VERIFY_TOKEN' },
  sessionIdle: { flag: '--session-idle-ms', env: 'SIGHTLINE_SESSION_IDLE_MS' },
  sessionMax: { flag: '--session-max-ms', env: 'SIGHTLINE_SESSION_MAX_MS' },
  notifyRetryBase: { flag: '--notify-retry-base-ms', env: 'SIGHTLINE_NOTIFY_RETRY_BASE_MS' },
  notifyTimeout: { flag: '--notify-timeout-ms', env: 'SIGHTLINE_NOTIFY_TIMEOUT_MS' },
  evalInterval: { flag: '--eval-interval-ms', env: 'SIGHTLINE_EVAL_INTERVAL_MS' },
  llmUrl: { flag: '--llm-url', env: 'SIGHTLINE_LLM_URL' },
  llmModel: { flag: '--llm-model', env: 'SIGHTLINE_LLM_MODEL' },
  llmApiKey: { flag: '--llm-api-key', env: 'SIGHTLINE_LLM_API_KEY' },
  llmTimeout: { flag: '--llm-timeout-ms', env: 'SIGHTLINE_LLM_TIMEOUT_MS' },
} satisfies Record<string, Setting>;

const MIB = 1024 * 1024;
const YEAR_MS = 365 * 86_400_000;

/** Flags win over environment; `--flag value` and `--flag=value` both work. */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Config {
  const flags = parseFlags(argv);
  const raw = (s: Setting): string | undefined => {
    const v = flags.get(s.flag) ?? env[s.env];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const name = (s: Setting) => `${s.flag} / ${s.env}`;

  const int = (s: Setting, dflt: number, min: number, max: number): number => {
    const v = raw(s);
    if (v === undefined) return dflt;
    if (!/^\d+$/.test(v)) throw new ConfigError(name(s), `expected a whole number, got "${v}"`);
    const n = Number(v);
    if (n < min || n > max) throw new ConfigError(name(s), `expected ${min}…${max}, got ${n}`);
    return n;
  };
  const bool = (s: Setting): boolean => {
    const v = raw(s);
    if (v === undefined) return false;
    if (/^(1|true|yes|on)$/i.test(v)) return true;
    if (/^(0|false|no|off)$/i.test(v)) return false;
    throw new ConfigError(name(s), `expected 1/0 or true/false, got "${v}"`);
  };
  const url = (s: Setting, protocols: string[]): string | undefined => {
    const v = raw(s);
    if (v === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(v);
    } catch {
      throw new ConfigError(name(s), `not a URL: "${v}"`);
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(name(s), `expected ${protocols.join(' or ')} URL, got "${parsed.protocol}"`);
    }
    return v;
  };

  const roleText = raw(S.role) ?? 'all';
  if (roleText !== 'all' && roleText !== 'ingest' && roleText !== 'app') {
    throw new ConfigError(name(S.role), `expected all, ingest or app, got "${roleText}"`);
  }
  const adminToken = raw(S.adminToken);
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError(name(S.adminToken), 'must be at least 16 characters');
  }

  const config: Config = {
    role: roleText,
    host: raw(S.host) ?? '127.0.0.1',
    ingestPort: int(S.ingestPort, 8080, 0, 65535),
    appPort: int(S.appPort, 8081, 0, 65535),
    dataDir: raw(S.dataDir) ?? './data',
    adminToken,
    maxBodyBytes: int(S.maxBody, 2, 1, 1024) * MIB,
    keyCacheTtlMs: int(S.keyCacheTtl, 60_000, 0, 86_400_000),
    sweepIntervalMs: int(S.sweepInterval, 3_600_000, 100, 86_400_000),
    walMaxBytes: int(S.walMax, 1024, 16, 1024 * 1024) * MIB,
    platformRate: int(S.platformRate, 50_000, 1, 100_000_000),
    testClock: bool(S.testClock),
    controlDb: url(S.controlDb, ['postgres:', 'postgresql:']),
    telemetryDb: telemetryDb(url(S.telemetryDb, ['http:', 'https:', 'chdb:']), name(S.telemetryDb)),
    appUpstream: url(S.appUpstream, ['http:', 'https:']),
    ingestUpstream: url(S.ingestUpstream, ['http:', 'https:']),
    vercelDrainSecret: raw(S.vercelSecret),
    vercelVerifyToken: raw(S.vercelVerify),
    // DESIGN §7: 12 h idle, 7 d at most; at least a second, at most a year.
    sessionIdleMs: int(S.sessionIdle, 12 * 3_600_000, 1000, YEAR_MS),
    sessionMaxMs: int(S.sessionMax, 7 * 86_400_000, 1000, YEAR_MS),
    // 5 s doubling to 10 min (notify/backoff.ts); a receiver gets 10 s to answer.
    notifyRetryBaseMs: int(S.notifyRetryBase, 5000, 10, 600_000),
    notifyTimeoutMs: int(S.notifyTimeout, 10_000, 100, 120_000),
    // DESIGN §8: every minute by default; 0 turns the schedule off (an instance that must not evaluate, or tests that
    // drive every pass themselves); otherwise at least a second, at most a day.
    evalIntervalMs: int(S.evalInterval, 60_000, 0, 86_400_000),
    llmUrl: url(S.llmUrl, ['http:', 'https:']),
    llmModel: raw(S.llmModel) ?? 'gpt-4o-mini',
    llmApiKey: raw(S.llmApiKey),
    // A model that has not answered in 20 s is not going to help the person waiting on the reply.
    llmTimeoutMs: int(S.llmTimeout, 20_000, 100, 300_000),
  };
  if (config.evalIntervalMs > 0 && config.evalIntervalMs < 1000) {
    throw new ConfigError(name(S.evalInterval), `expected 0 (off) or 1000…86400000, got ${config.evalIntervalMs}`);
  }
  if (config.role === 'ingest' && config.appUpstream === undefined) {
    throw new ConfigError(name(S.appUpstream), 'required with --role ingest');
  }
  if (config.role === 'app' && config.ingestUpstream === undefined) {
    throw new ConfigError(name(S.ingestUpstream), 'required with --role app');
  }
  return Object.freeze(config);
}

/** A chdb: setting must name its directory (DESIGN §10 `chdb:<dir>`). */
function telemetryDb(v: string | undefined, setting: string): string | undefined {
  if (v !== undefined && v.startsWith('chdb:') && v.slice('chdb:'.length).trim() === '') {
    throw new ConfigError(setting, 'chdb: needs a directory, e.g. chdb:clickhouse');
  }
  return v;
}

function parseFlags(argv: readonly string[]): Map<string, string> {
  const known = new Set(Object.values(S).map((s) => s.flag));
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) continue;
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    if (!known.has(flag)) throw new ConfigError(flag, 'unknown flag');
    if (flag === S.testClock.flag && eq < 0) {
      out.set(flag, '1');
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new ConfigError(flag, 'missing value');
    out.set(flag, value);
  }
  return out;
}
