// Where the app plane finds a session token, and which cookie writes are cross-site (spec rule 10; DESIGN §7),
// as tables of cases (STYLE.md habit 9).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DistinctHeaders } from './credentials.js';
import {
  clearedSessionCookie, cookieValue, extractSessionCredential, isCrossSiteWrite, newSessionToken, sessionCookie,
  type SessionCredential,
} from './session-credential.js';

const T = 'sls_abc';
const cases: { rule: string; headers: DistinctHeaders; query?: string; want: SessionCredential | null }[] = [
  { rule: 'Bearer sls_ is a session', headers: { authorization: [`Bearer ${T}`] }, want: { token: T, via: 'bearer' } },
  { rule: 'the scheme is case-insensitive on the app plane', headers: { authorization: [`bearer ${T}`] }, want: { token: T, via: 'bearer' } },
  { rule: 'Token sls_ is a session too', headers: { authorization: [`Token ${T}`] }, want: { token: T, via: 'bearer' } },
  { rule: 'the cookie is a session', headers: { cookie: [`a=1; sightline_session=${T}; b=2`] }, want: { token: T, via: 'cookie' } },
  { rule: 'Bearer sls_ beats the cookie', headers: { authorization: ['Bearer sls_other'], cookie: [`sightline_session=${T}`] }, want: { token: 'sls_other', via: 'bearer' } },
  { rule: 'an API key header beats the cookie', headers: { 'x-api-key': ['sl_key'], cookie: [`sightline_session=${T}`] }, want: null },
  { rule: 'a Bearer API key beats the cookie', headers: { authorization: ['Bearer sl_key'], cookie: [`sightline_session=${T}`] }, want: null },
  { rule: '?api_key= beats the cookie', headers: { cookie: [`sightline_session=${T}`] }, query: 'api_key=sl_key', want: null },
  { rule: 'sls_ in X-API-Key is not a session (an unknown key)', headers: { 'x-api-key': [T] }, want: null },
  { rule: 'sls_ in ?api_key= is not a session (an unknown key)', headers: {}, query: `api_key=${T}`, want: null },
  { rule: 'an unparsed scheme does not hide the cookie', headers: { authorization: [`Splunk x`], cookie: [`sightline_session=${T}`] }, want: { token: T, via: 'cookie' } },
  { rule: 'an empty cookie is none', headers: { cookie: ['sightline_session='] }, want: null },
  { rule: 'another cookie is none', headers: { cookie: ['sightline_session_old=x; session=y'] }, want: null },
  { rule: 'nothing is none', headers: {}, want: null },
];

void describe('session credential', () => {
  for (const c of cases) {
    void it(c.rule, () => {
      assert.deepEqual(extractSessionCredential(c.headers, new URLSearchParams(c.query ?? '')), c.want);
    });
  }

  void it('tokens are sls_ + 32 random bytes in base64url', () => {
    const t = newSessionToken();
    assert.match(t, /^sls_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(t, newSessionToken());
  });

  void it('the cookie is HttpOnly, SameSite=Strict, Path=/; sign-out clears it', () => {
    assert.equal(sessionCookie(T), `sightline_session=${T}; HttpOnly; SameSite=Strict; Path=/`);
    assert.equal(clearedSessionCookie(), 'sightline_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
  });

  void it('cookie values: first non-empty, quotes removed, across repeated headers', () => {
    assert.equal(cookieValue(['x=1', 'sightline_session="q"'], 'sightline_session'), 'q');
    assert.equal(cookieValue(['sightline_session=; sightline_session=b'], 'sightline_session'), 'b');
    assert.equal(cookieValue(undefined, 'sightline_session'), undefined);
  });
});

const crossSite: { rule: string; method: string; headers: DistinctHeaders; refused: boolean }[] = [
  { rule: 'GET needs nothing', method: 'GET', headers: {}, refused: false },
  { rule: 'HEAD needs nothing', method: 'HEAD', headers: {}, refused: false },
  { rule: 'POST without a header is refused', method: 'POST', headers: { host: ['a:1'] }, refused: true },
  { rule: 'POST with X-Requested-With: sightline passes', method: 'POST', headers: { 'x-requested-with': ['sightline'] }, refused: false },
  { rule: 'X-Requested-With is compared without case', method: 'DELETE', headers: { 'x-requested-with': ['Sightline'] }, refused: false },
  { rule: 'another X-Requested-With value is refused', method: 'PUT', headers: { 'x-requested-with': ['XMLHttpRequest'] }, refused: true },
  { rule: 'an Origin with the request\'s host passes', method: 'POST', headers: { host: ['127.0.0.1:8081'], origin: ['http://127.0.0.1:8081'] }, refused: false },
  { rule: 'an Origin of another port is refused', method: 'POST', headers: { host: ['127.0.0.1:8081'], origin: ['http://127.0.0.1:9999'] }, refused: true },
  { rule: 'an Origin of another host is refused', method: 'PATCH', headers: { host: ['app.example.com'], origin: ['https://evil.example.com'] }, refused: true },
  { rule: 'Origin: null is refused', method: 'POST', headers: { host: ['a'], origin: ['null'] }, refused: true },
];

void describe('cross-site writes with the cookie', () => {
  for (const c of crossSite) {
    void it(c.rule, () => {
      assert.equal(isCrossSiteWrite(c.method, c.headers), c.refused);
    });
  }
});
