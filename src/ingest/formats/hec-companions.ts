// The HEC endpoints shippers probe beside the event routes (wire-formats.md §3.12, §4 "Splunk HEC clients"):
//   GET  /services/collector/health (+ /1.0) → 200 {"text":"HEC is healthy","code":17}
//   POST /services/collector/ack            → {"acks":{"<id>":true,…}}
// We hand out no ackIds: a 200 already means the batch is fsynced in the WAL, so every queried ack is true.
import type { Handler, RequestContext } from '../../front-doors/context.js';
import { errors } from '../../errors.js';
import { asServiceError, sendError, sendJson } from '../../front-doors/reply.js';
import { isJsonObject, tryJson } from './shipper-records.js';

/** An ack query is a short list of ids; anything larger is not one. */
export const HEC_ACK_MAX_BYTES = 1024 * 1024;

export const hecHealthHandler: Handler = (ctx) => {
  sendJson(ctx.res, 200, { text: 'HEC is healthy', code: 17 });
  return Promise.resolve();
};

async function readSmallBody(ctx: RequestContext): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buf.length;
    if (size > HEC_ACK_MAX_BYTES) throw errors.payloadTooLarge(`more than ${HEC_ACK_MAX_BYTES}`, HEC_ACK_MAX_BYTES);
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** `{"acks":[0,1]}` → `{"acks":{"0":true,"1":true}}`. */
export function ackReply(body: unknown): { acks: Record<string, boolean> } {
  const ids = isJsonObject(body) ? body.acks : undefined;
  if (!Array.isArray(ids)) throw errors.badRequest('Ack query must be a JSON object {"acks":[<ackId>, …]}');
  const acks: Record<string, boolean> = {};
  for (const id of ids) {
    if (typeof id !== 'number' && typeof id !== 'string') throw errors.badRequest('Ack ids must be numbers');
    acks[String(id)] = true;
  }
  return { acks };
}

export const hecAckHandler: Handler = async (ctx) => {
  try {
    const body = await readSmallBody(ctx);
    sendJson(ctx.res, 200, ackReply(tryJson(body.toString('utf8'))));
  } catch (e) {
    sendError(ctx.res, asServiceError(e, (m) => { console.error(m); }), 'logs');
  }
};
