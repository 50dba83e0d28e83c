// Document ids for bulk items and documents sent without one (Elasticsearch's auto ids are 20 base64url characters).
import { randomBytes } from 'node:crypto';

const ID_BYTES = 15;
/** Ids drawn per call to the random source: one call for each id was two thirds of a bulk request's parse (issue 12). */
const IDS_PER_DRAW = 256;
let pool = Buffer.alloc(0);
let at = 0;

export function autoId(): string {
  if (at + ID_BYTES > pool.length) {
    pool = randomBytes(ID_BYTES * IDS_PER_DRAW);
    at = 0;
  }
  const id = pool.toString('base64url', at, at + ID_BYTES);
  at += ID_BYTES;
  return id;
}
