// Credential extraction per plane: pure functions of headers and query (spec, Authentication, and
// DESIGN §5 for the header order). The first credential that parses wins; one that does not parse
// never shadows a later form (rule 3), one that parses with a wrong key does (rule 4 → 403 later).
import type { IncomingHttpHeaders } from 'node:http';

export type Credential =
  | { kind: 'none' }
  | { kind: 'key'; key: string }
  /** Repeats of one header with different values: one unknown key (DESIGN §5) → 403. */
  | { kind: 'conflicting' };

/** Headers as Node's `req.headersDistinct`: every header name lower-case, every repeat kept. */
export type DistinctHeaders = Record<string, string[] | undefined>;

export interface IngestCredentialOptions {
  /** `?api_key=` is honoured only on drains and GELF (spec, credential table). */
  queryKeyAllowed: boolean;
  /** Firehose can send only X-Amz-Firehose-Access-Key (DESIGN §5): cloudwatch/firehose paths only. */
  firehoseKeyAllowed: boolean;
}

const NONE: Credential = { kind: 'none' };

/** Ingest plane: X-API-Key, then Authorization (literal `Bearer ` / `Basic `), then the query key. */
export function extractIngestCredential(
  headers: DistinctHeaders,
  query: URLSearchParams,
  options: IngestCredentialOptions,
): Credential {
  const fromHeader = headerKey(headers['x-api-key']);
  if (fromHeader.kind !== 'none') return fromHeader;
  const fromAuth = firstParsed(headers.authorization, parseIngestAuthorization);
  if (fromAuth.kind !== 'none') return fromAuth;
  if (options.firehoseKeyAllowed) {
    const fromFirehose = headerKey(headers['x-amz-firehose-access-key']);
    if (fromFirehose.kind !== 'none') return fromFirehose;
  }
  return options.queryKeyAllowed ? queryKey(query) : NONE;
}

/** App plane: Authorization (Bearer / Token / Basic, case-insensitive), then X-API-Key, then the query key. */
export function extractAppCredential(headers: DistinctHeaders, query: URLSearchParams): Credential {
  const fromAuth = firstParsed(headers.authorization, parseAppAuthorization);
  if (fromAuth.kind !== 'none') return fromAuth;
  const fromHeader = headerKey(headers['x-api-key']);
  if (fromHeader.kind !== 'none') return fromHeader;
  return queryKey(query);
}

/** Node's `req.headersDistinct` where available; otherwise split what `req.headers` joined. */
export function distinctHeaders(headers: IncomingHttpHeaders, distinct?: DistinctHeaders): DistinctHeaders {
  if (distinct) return distinct;
  const out: DistinctHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value : [value];
  }
  return out;
}

/**
 * A key header: repeats with one value count once (the Elasticsearch client sends X-API-Key twice);
 * repeats with different values are one unknown key. Node joins repeats of unknown headers with ", ",
 * so a joined value made of one key repeated is split back here too.
 */
function headerKey(values: string[] | undefined): Credential {
  if (!values) return NONE;
  const keys = new Set<string>();
  for (const value of values) {
    for (const part of value.split(',')) {
      const key = part.trim(); // rule 5: surrounding whitespace is trimmed
      if (key !== '') keys.add(key);
    }
  }
  if (keys.size === 0) return NONE; // rule 5: an empty credential counts as none
  if (keys.size > 1) return { kind: 'conflicting' };
  const [only] = keys;
  return only === undefined ? NONE : { kind: 'key', key: only };
}

function firstParsed(values: string[] | undefined, parse: (value: string) => Credential): Credential {
  if (!values) return NONE;
  const keys = new Set<string>();
  for (const value of values) {
    const c = parse(value);
    if (c.kind === 'conflicting') return c;
    if (c.kind === 'key') keys.add(c.key);
  }
  if (keys.size > 1) return { kind: 'conflicting' };
  const [only] = keys;
  return only === undefined ? NONE : { kind: 'key', key: only };
}

/** Rule 2: the ingest plane matches the literal prefixes `Bearer ` and `Basic ` only. */
function parseIngestAuthorization(value: string): Credential {
  if (value.startsWith('Bearer ')) return bare(value.slice(7));
  if (value.startsWith('Basic ')) return basicUser(value.slice(6));
  return NONE; // `Token`, `bearer`, `Splunk` (rule 1), `ApiKey`: not parsed
}

/** App plane: Bearer and Token carry the key, Basic carries it as the username; scheme case-insensitive. */
function parseAppAuthorization(value: string): Credential {
  const m = /^\s*([A-Za-z]+) +(.*)$/s.exec(value);
  if (!m) return NONE;
  const scheme = (m[1] ?? '').toLowerCase();
  const rest = m[2] ?? '';
  if (scheme === 'bearer' || scheme === 'token') return bare(rest);
  if (scheme === 'basic') return basicUser(rest);
  return NONE; // `Splunk` is not parsed on any plane (rule 1)
}

function bare(text: string): Credential {
  const key = text.trim();
  return key === '' ? NONE : { kind: 'key', key };
}

/** Basic: the key is the username; the password is ignored (credential table). */
function basicUser(encoded: string): Credential {
  const b64 = encoded.trim();
  if (!/^[A-Za-z0-9+/=_-]+$/.test(b64)) return NONE;
  const decoded = Buffer.from(b64, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return bare(colon >= 0 ? decoded.slice(0, colon) : decoded);
}

function queryKey(query: URLSearchParams): Credential {
  const values = query.getAll('api_key');
  return headerKey(values.length > 0 ? values : undefined);
}
