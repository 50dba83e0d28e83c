// Key lookup with the ingest plane's cache (DESIGN §1 "Caches"): a grant read from the control store is
// reused for SIGHTLINE_KEY_CACHE_TTL_MS on the ingest plane, so a tier change, rotation, expiry or
// revocation reaches ingest within that time; the app plane reads fresh every time (DESIGN §3: a rotated secret is
// refused at once there). Either plane falls back to a cached answer, however old, when the store is unreachable;
// with none it is 503 (rule 11).
//
// A read is needless when the store cannot have changed since the answer was read: the embedded PGlite counts the
// statements that may write it (ControlStore.changes), and only this process can write it. Such an answer is what a
// fresh read would give, on either plane. Metric writes come in on the app plane, and a PGlite read for each request
// was ~13-16 % of the request thread's time under the bench's remote-write load (~80 requests a second).
import { hashSecret } from './api-keys.js';
import { ControlStoreUnavailableError, type ControlStore, type KeyGrant } from '../stores/control/control-store.js';
import { errors } from '../errors.js';

interface CacheEntry {
  grant: KeyGrant | null;
  /** Wall-clock ms when read; the TTL is wall time, not service time, since it bounds staleness. */
  readAt: number;
  /** The store's ControlStore.changes before the read, when it counts them. */
  changes: number | undefined;
}

export type Freshness = 'cached' | 'fresh';

export class KeyResolver {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly store: ControlStore,
    private readonly ttlMs: number,
    private readonly maxEntries = 100_000,
  ) {}

  /** The grant for a secret, or null for an unknown, rotated or revoked key. */
  async resolve(secret: string, freshness: Freshness): Promise<KeyGrant | null> {
    const hash = hashSecret(secret);
    const hit = this.cache.get(hash);
    const changes = this.store.changes?.();
    if (hit && changes !== undefined && hit.changes === changes) return hit.grant; // nothing written since
    if (freshness === 'cached' && hit && Date.now() - hit.readAt < this.ttlMs) return hit.grant;
    let grant: KeyGrant | null;
    try {
      grant = await this.store.findGrantByHash(hash);
    } catch (e) {
      if (!(e instanceof ControlStoreUnavailableError)) throw e;
      if (hit) return hit.grant; // stale beats down: the store is out, the key was good a moment ago
      throw errors.authUnavailable();
    }
    this.remember(hash, grant, changes);
    return grant;
  }

  /** Drop every cached answer (admin changes in the same process want to be seen at once on the app plane). */
  forget(): void {
    this.cache.clear();
  }

  private remember(hash: string, grant: KeyGrant | null, changes: number | undefined): void {
    if (this.cache.size >= this.maxEntries) {
      // Map iterates in insertion order: drop the oldest tenth.
      let n = Math.ceil(this.maxEntries / 10);
      for (const k of this.cache.keys()) {
        this.cache.delete(k);
        if (--n === 0) break;
      }
    }
    this.cache.delete(hash);
    this.cache.set(hash, { grant, readAt: Date.now(), changes });
  }
}
