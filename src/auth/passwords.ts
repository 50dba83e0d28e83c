// User passwords (DESIGN §7 "a slow salted hash (scrypt or argon2)"): scrypt from node:crypto, a fresh 16-byte salt
// per hash, and the parameters written into the hash string, so that stronger parameters later still verify
// the hashes stored today. Comparison is constant-time. Format: `scrypt$<N>$<r>$<p>$<salt b64url>$<hash b64url>`.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { errors } from '../errors.js';

/**
 * N = 2^15, r = 8, p = 1: 32 MiB and ~0.25 s per hash on this project's 2-core machine (2^17, OWASP's figure, took
 * 1.2 s there). The parameters are stored in every hash, so raising them later keeps old hashes verifiable.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

export const MIN_PASSWORD_LENGTH = 8;
/** Bounds the work one request can ask of the hash (a megabyte "password" is not a password). */
export const MAX_PASSWORD_LENGTH = 1024;

/** Parameters a stored hash may name: anything else is refused rather than run (a hash string is data). */
const LIMITS = { maxN: 2 ** 20, maxR: 32, maxP: 16 } as const;

function derive(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  // maxmem must cover 128·N·r bytes, or scrypt refuses; twice that leaves room for its own bookkeeping.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (e, key) => (e ? reject(e) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, PARAMS.N, PARAMS.r, PARAMS.p);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** True when `password` matches `stored`; false for a wrong password and for a malformed or foreign hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0)) return false;
  if (N > LIMITS.maxN || (N & (N - 1)) !== 0 || r > LIMITS.maxR || p > LIMITS.maxP) return false;
  const salt = Buffer.from(parts[4] ?? '', 'base64url');
  const expected = Buffer.from(parts[5] ?? '', 'base64url');
  if (salt.length === 0 || expected.length !== KEY_BYTES) return false;
  const actual = await derive(password, salt, N, r, p);
  return timingSafeEqual(actual, expected);
}

let dummy: Promise<string> | undefined;

/**
 * Spends the same work as a real check and answers false: sign-in calls it for an unknown email, so the reply
 * time does not tell which emails exist.
 */
export async function verifyNothing(password: string): Promise<false> {
  dummy ??= hashPassword(randomBytes(12).toString('base64url'));
  await verifyPassword(password, await dummy);
  return false;
}

/** A new password's rules (DESIGN §7): at least 8 characters; 400 naming the field otherwise. */
export function checkNewPassword(password: string | undefined, fieldName: string): string {
  if (password === undefined || password === '') throw errors.badRequest(`${fieldName} is required`);
  // Characters as a person counts them (grapheme clusters), not UTF-16 code units.
  if ([...new Intl.Segmenter().segment(password)].length < MIN_PASSWORD_LENGTH) {
    throw errors.badRequest(`${fieldName} must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (password.length > MAX_PASSWORD_LENGTH) throw errors.badRequest(`${fieldName} must be at most ${MAX_PASSWORD_LENGTH} characters`);
  return password;
}

/** A password for a user made by the service itself (first start): 18 random bytes, 24 characters. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
