// API key secrets: generated once, shown once, stored only as a hash (DESIGN §3; issue 2 item 4).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `sl_` + 32 random bytes, base64url: 256 bits, so a plain sha256 is a sound verifier. */
export function newSecret(): string {
  return 'sl_' + randomBytes(32).toString('base64url');
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex hashes of equal length. */
export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
