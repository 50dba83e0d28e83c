// Password hashing (DESIGN §7): salted scrypt with its parameters in the string, constant-time verification.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../errors.js';
import { checkNewPassword, generatePassword, hashPassword, verifyNothing, verifyPassword } from './passwords.js';

void describe('passwords', () => {
  void it('a hash verifies its own password and no other', async () => {
    const h = await hashPassword('correct horse');
    assert.match(h, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.equal(await verifyPassword('correct horse', h), true);
    assert.equal(await verifyPassword('correct horsE', h), false);
    assert.equal(await verifyPassword('', h), false);
  });

  void it('every hash has its own salt', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    assert.notEqual(a, b);
    assert.equal(await verifyPassword('same password', b), true);
  });

  void it('the parameters are read from the stored string, so other parameters still verify', async () => {
    const h = await hashPassword('abcdefgh');
    const parts = h.split('$');
    // A hash made with N = 2^14 (as an older release might have stored) verifies with its own parameters.
    const { scryptSync } = await import('node:crypto');
    const salt = Buffer.from(parts[4] ?? '', 'base64url');
    const old = ['scrypt', 16384, 8, 1, parts[4], scryptSync('abcdefgh', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64url')].join('$');
    assert.equal(await verifyPassword('abcdefgh', old), true);
  });

  void it('malformed or hostile hash strings are a plain false, never a crash or a huge allocation', async () => {
    const good = await hashPassword('abcdefgh');
    const [, , , , salt, key] = good.split('$');
    for (const bad of [
      '', 'plain', 'bcrypt$x', `scrypt$0$8$1$${salt}$${key}`, `scrypt$1000$8$1$${salt}$${key}`,
      `scrypt$${2 ** 30}$8$1$${salt}$${key}`, `scrypt$32768$999$1$${salt}$${key}`, `scrypt$32768$8$1$$${key}`,
      `scrypt$32768$8$1$${salt}$AAAA`, `scrypt$32768$8$1$${salt}`,
    ]) {
      assert.equal(await verifyPassword('abcdefgh', bad), false, bad);
    }
  });

  void it('verifyNothing spends a hash and answers false', async () => {
    assert.equal(await verifyNothing('anything'), false);
  });

  const refusals: [string | undefined, RegExp][] = [
    [undefined, /^password is required$/],
    ['', /^password is required$/],
    ['1234567', /^password must be at least 8 characters$/],
    ['x'.repeat(1025), /^password must be at most 1024 characters$/],
  ];
  for (const [input, detail] of refusals) {
    void it(`a new password ${JSON.stringify(input?.slice(0, 10))} is refused with 400 ${detail.source}`, () => {
      assert.throws(() => checkNewPassword(input, 'password'), (e: unknown) =>
        e instanceof ServiceError && e.status === 400 && detail.test(e.detail));
    });
  }

  void it('eight characters are enough, counted as characters rather than bytes', () => {
    assert.equal(checkNewPassword('12345678', 'password'), '12345678');
    assert.equal(checkNewPassword('ääääääää', 'password'), 'ääääääää');
    assert.throws(() => checkNewPassword('😀😀😀😀', 'password'), /at least 8/, 'four emoji are four characters, though eight code units');
  });

  void it('generated passwords are long and distinct', () => {
    const a = generatePassword();
    assert.equal(a.length, 24);
    assert.notEqual(a, generatePassword());
  });
});
