// Single-document writes of the Elasticsearch API (wire-formats §3.3, §4): `client.index()` sends
// `POST /<index>/_doc` (or `PUT /<index>/_doc/<id>`), `client.create()` `PUT /<index>/_create/<id>`.
// One document becomes one entry; the reply is ES's write response (201 `created`), plus the spec's
// `{status, accepted}`.
import type { IngestFormat, ParsedBody } from '../format.js';
import { errors } from '../../errors.js';
import { sendJson } from '../../front-doors/reply.js';
import { ELASTIC_PRODUCT_HEADERS, toEntry } from './elasticsearch.js';
import { autoId } from './elasticsearch-ids.js';
import { utf8Text } from '../utf8-text.js';

const DOC_PATH = /^(?:\/insert\/elasticsearch)?\/([^/]+)\/(?:_doc|_create)(?:\/([^/]+))?\/?$/;

interface DocReply {
  index: string;
  id: string;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function parseDocument(body: Buffer, path: string, nowNs: bigint): ParsedBody {
  const m = DOC_PATH.exec(path);
  const index = m?.[1] === undefined ? '' : decode(m[1]);
  const id = m?.[2] === undefined ? autoId() : decode(m[2]);
  let doc: unknown;
  try {
    doc = JSON.parse(utf8Text(body));
  } catch (e) {
    throw errors.badRequest(`failed to parse the document: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw errors.badRequest('the document must be a JSON object');
  const reply: DocReply = { index, id };
  return { batch: { logs: [toEntry(doc as Record<string, unknown>, index, id, nowNs)], spans: [] }, signal: 'logs', replyData: reply };
}

export const elasticsearchDocFormat: IngestFormat = {
  name: 'elasticsearch',
  parse: (body, req) => parseDocument(body, req.path, req.nowNs),
  reply(ctx, accepted, parsed) {
    const { index, id } = parsed.replyData as DocReply;
    sendJson(ctx.res, 201, {
      _index: index, _id: id, _version: 1, result: 'created',
      _shards: { total: 1, successful: 1, failed: 0 }, _seq_no: 0, _primary_term: 1,
      status: 'ok', accepted,
    }, { ...ELASTIC_PRODUCT_HEADERS });
  },
};
