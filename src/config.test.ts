import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from './config.js';

describe('config', () => {
  it('has the defaults of DESIGN §2', () => {
    const c = loadConfig([], {});
    assert.equal(c.ingestPort, 8080);
    assert.equal(c.appPort, 8081);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.dataDir, './data');
    assert.equal(c.maxBodyBytes, 2 * 1024 * 1024);
    assert.equal(c.keyCacheTtlMs, 60_000);
    assert.equal(c.sweepIntervalMs, 3_600_000);
    assert.equal(c.walMaxBytes, 1024 * 1024 * 1024);
    assert.equal(c.platformRate, 50_000);
    assert.equal(c.testClock, false);
    assert.equal(c.sessionIdleMs, 12 * 3_600_000, 'DESIGN §7: 12 h idle');
    assert.equal(c.sessionMaxMs, 7 * 86_400_000, 'DESIGN §7: 7 d at most');
    assert.equal(c.evalIntervalMs, 60_000, 'DESIGN §8: detectors every minute');
  });

  it('reads the evaluation interval; 0 turns the schedule off; below a second is refused by name', () => {
    assert.equal(loadConfig([], { SIGHTLINE_EVAL_INTERVAL_MS: '15000' }).evalIntervalMs, 15_000);
    assert.equal(loadConfig(['--eval-interval-ms=0'], {}).evalIntervalMs, 0);
    assert.throws(() => loadConfig([], { SIGHTLINE_EVAL_INTERVAL_MS: '500' }), /SIGHTLINE_EVAL_INTERVAL_MS/);
    assert.throws(() => loadConfig([], { SIGHTLINE_EVAL_INTERVAL_MS: '1m' }), /SIGHTLINE_EVAL_INTERVAL_MS/);
  });

  it('reads the session ages from flags and environment, and refuses bad ones by name', () => {
    const c = loadConfig(['--session-idle-ms', '60000'], { SIGHTLINE_SESSION_MAX_MS: '120000' });
    assert.equal(c.sessionIdleMs, 60_000);
    assert.equal(c.sessionMaxMs, 120_000);
    assert.throws(() => loadConfig([], { SIGHTLINE_SESSION_IDLE_MS: '12h' }), /SIGHTLINE_SESSION_IDLE_MS/);
    assert.throws(() => loadConfig(['--session-max-ms=0'], {}), /--session-max-ms/);
  });

  it('reads environment and lets flags win', () => {
    const c = loadConfig(['--app-port', '9001', '--data-dir=/tmp/x'], { SIGHTLINE_APP_PORT: '7000', SIGHTLINE_INGEST_PORT: '0', SIGHTLINE_TEST_CLOCK: '1' });
    assert.equal(c.appPort, 9001);
    assert.equal(c.ingestPort, 0);
    assert.equal(c.dataDir, '/tmp/x');
    assert.equal(c.testClock, true);
  });

  it('names the setting when a value is bad', () => {
    assert.throws(() => loadConfig([], { SIGHTLINE_INGEST_PORT: 'eighty' }), (e: unknown) => e instanceof ConfigError && e.message.includes('SIGHTLINE_INGEST_PORT'));
    assert.throws(() => loadConfig([], { SIGHTLINE_MAX_BODY_SIZE_MB: '0' }), /SIGHTLINE_MAX_BODY_SIZE_MB/);
    assert.throws(() => loadConfig([], { SIGHTLINE_CONTROL_DB: 'mysql://x' }), /SIGHTLINE_CONTROL_DB/);
    assert.throws(() => loadConfig(['--nope', '1'], {}), /--nope/);
    assert.throws(() => loadConfig([], { SIGHTLINE_ROLE: 'ingest' }), /SIGHTLINE_APP_UPSTREAM/);
  });
});
