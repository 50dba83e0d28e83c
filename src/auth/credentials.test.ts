// The spec's credential table and its rules, as a table of cases per plane (STYLE.md habit 9).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { extractAppCredential, extractIngestCredential, type Credential, type DistinctHeaders } from './credentials.js';

const K = 'sl_goodkey';
const basic = (user: string, pass = 'x') => 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');
const key = (k: string): Credential => ({ kind: 'key', key: k });
const none: Credential = { kind: 'none' };

interface Case {
  rule: string;
  headers: DistinctHeaders;
  query?: string;
  ingest: Credential;
  app: Credential;
  /** Ingest route allows ?api_key= (drains, GELF). */
  queryAllowed?: boolean;
}

const cases: Case[] = [
  { rule: 'Bearer is accepted on both planes', headers: { authorization: [`Bearer ${K}`] }, ingest: key(K), app: key(K) },
  { rule: 'lower-case bearer is not parsed on ingest (rule 2), accepted on app', headers: { authorization: [`bearer ${K}`] }, ingest: none, app: key(K) },
  { rule: 'Token is not accepted on ingest, accepted on app', headers: { authorization: [`Token ${K}`] }, ingest: none, app: key(K) },
  { rule: 'Basic carries the key as username, password ignored', headers: { authorization: [basic(K, 'whatever')] }, ingest: key(K), app: key(K) },
  { rule: 'lower-case basic is not parsed on ingest', headers: { authorization: [basic(K).replace('Basic', 'basic')] }, ingest: none, app: key(K) },
  { rule: 'X-API-Key is accepted on both planes', headers: { 'x-api-key': [K] }, ingest: key(K), app: key(K) },
  { rule: 'the Splunk scheme is not parsed on any plane (rule 1)', headers: { authorization: [`Splunk ${K}`] }, ingest: none, app: none },
  { rule: 'ApiKey is not a scheme of the table', headers: { authorization: [`ApiKey ${K}`] }, ingest: none, app: none },
  { rule: '?api_key= is refused on ingest where not allowed', headers: {}, query: `api_key=${K}`, ingest: none, app: key(K) },
  { rule: '?api_key= is accepted on drains and GELF', headers: {}, query: `api_key=${K}`, queryAllowed: true, ingest: key(K), app: key(K) },
  { rule: 'an unparseable header does not shadow a valid ?api_key= (rule 3)', headers: { authorization: [`Token ${K}`] }, query: `api_key=${K}`, queryAllowed: true, ingest: key(K), app: key(K) },
  { rule: 'a parseable header wins over the query key (rule 4)', headers: { authorization: ['Bearer wrong'] }, query: `api_key=${K}`, queryAllowed: true, ingest: key('wrong'), app: key('wrong') },
  { rule: 'surrounding whitespace is trimmed (rule 5)', headers: { authorization: [`Bearer   ${K}  `] }, ingest: key(K), app: key(K) },
  { rule: 'a padded Basic user is trimmed', headers: { authorization: [basic(`  ${K}  `)] }, ingest: key(K), app: key(K) },
  { rule: 'a padded query key is trimmed', headers: {}, query: `api_key=%20${K}%20`, queryAllowed: true, ingest: key(K), app: key(K) },
  { rule: 'an empty X-API-Key counts as none', headers: { 'x-api-key': [''] }, ingest: none, app: none },
  { rule: 'an empty Bearer counts as none', headers: { authorization: ['Bearer '] }, ingest: none, app: none },
  { rule: 'an empty credential falls through to the next form', headers: { 'x-api-key': ['  '], authorization: [`Bearer ${K}`] }, ingest: key(K), app: key(K) },
  { rule: 'ingest reads X-API-Key first, app reads Authorization first (DESIGN §5)', headers: { 'x-api-key': ['from-header'], authorization: ['Bearer from-auth'] }, ingest: key('from-header'), app: key('from-auth') },
  { rule: 'a repeated header with one value counts once (Elasticsearch client)', headers: { 'x-api-key': [K, K] }, ingest: key(K), app: key(K) },
  { rule: 'Node-joined repeats of one value count once', headers: { 'x-api-key': [`${K}, ${K}`] }, ingest: key(K), app: key(K) },
  { rule: 'repeats with different values are one unknown key', headers: { 'x-api-key': [K, 'other'] }, ingest: { kind: 'conflicting' }, app: { kind: 'conflicting' } },
  { rule: 'no credential at all', headers: {}, ingest: none, app: none },
];

describe('credential table', () => {
  for (const c of cases) {
    it(c.rule, () => {
      const query = new URLSearchParams(c.query ?? '');
      assert.deepEqual(extractIngestCredential(c.headers, query, { queryKeyAllowed: c.queryAllowed ?? false, firehoseKeyAllowed: false }), c.ingest, 'ingest plane');
      assert.deepEqual(extractAppCredential(c.headers, query), c.app, 'app plane');
    });
  }

  it('X-Amz-Firehose-Access-Key counts only where allowed', () => {
    const headers = { 'x-amz-firehose-access-key': [K] };
    assert.deepEqual(extractIngestCredential(headers, new URLSearchParams(), { queryKeyAllowed: false, firehoseKeyAllowed: true }), key(K));
    assert.deepEqual(extractIngestCredential(headers, new URLSearchParams(), { queryKeyAllowed: false, firehoseKeyAllowed: false }), none);
    assert.deepEqual(extractAppCredential(headers, new URLSearchParams()), none);
  });
});
