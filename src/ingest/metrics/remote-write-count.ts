// The request thread's count of a remote write 1.0 body, made during the walk that checks it (issue 12 item 2).
// The count must say what the store worker's read will say: how many samples, exemplars and metadata families, and
// whether the decoder must take the body instead (native histograms, a label set splitLabels refuses, too many
// samples). Reading every label into strings and a labels object to learn that cost the request thread more than
// protobufjs's whole decode (0.43 against 0.31 µs a sample on the bench's bodies). Here the walk of proto-walk.ts
// hands over each field's bytes as it checks them, and the labels are checked as bytes.
//
// Bytes answer what strings would: the walk has found every Label name valid UTF-8, and valid UTF-8 decodes one
// way, so two names are the same string exactly when they are the same bytes. splitLabels refuses a name given
// twice in a series and a series without a non-empty `__name__`; that is all it refuses.
import type { Type } from 'protobufjs';
import { decodesCleanly } from '../formats/proto-walk.js';
import type { ParsedMetrics } from './parsed-metrics.js';
import { RemoteWriteTypes } from './remote-write-proto.js';
import { REMOTE_WRITE_MAX_SAMPLES } from './remote-write.js';

const messageType = (parent: Type, field: string): Type => {
  const type = parent.fields[field]?.resolvedType;
  if (type === null || type === undefined || !('fieldsArray' in type)) throw new Error(`remote-write-count: no message ${field}`);
  return type;
};
const WRITE_REQUEST = RemoteWriteTypes.WriteRequest;
const TIME_SERIES = messageType(WRITE_REQUEST, 'timeseries');
const METADATA = messageType(WRITE_REQUEST, 'metadata');
const LABEL = messageType(TIME_SERIES, 'labels');
const EXEMPLAR = messageType(TIME_SERIES, 'exemplars');

/** `__name__` in UTF-8. */
const NAME_LABEL = Buffer.from('__name__');
/** Names in one series compared pairwise up to this many; past it, by a set (a body may hold a series of 10^5 labels). */
const PAIRWISE_NAMES = 32;

/** The walk's visitor: the count so far, and the series and label being walked. */
class Counter {
  samples = 0;
  exemplars = 0;
  /** A native histogram, or a label set splitLabels refuses: the decoder's body. */
  decoderOnly = false;
  readonly families = new Set<string>();
  /** The Label being walked: its name's bytes and whether it has a value (the last of each field, as protobufjs keeps). */
  private nameStart = 0;
  private nameEnd = 0;
  private hasValue = false;
  /** The series being walked: the start and end of each label name so far, and whether one is a non-empty `__name__`. */
  private readonly names: number[] = [];
  private nameSet: Set<string> | null = null;
  private named = false;
  /** The MetricMetadata being walked: its family name's bytes. */
  private familyStart = 0;
  private familyEnd = 0;

  constructor(private readonly body: Buffer) {}

  readonly visit = (type: Type, field: number, start: number, end: number): void => {
    if (type === LABEL) {
      if (field === 1) {
        this.nameStart = start;
        this.nameEnd = end;
      } else if (field === 2) this.hasValue = end > start;
    } else if (type === TIME_SERIES) {
      if (field === 1) this.label();
      else if (field === 2) this.samples++;
      else if (field === 3) this.exemplars++;
      else if (field === 4) this.decoderOnly = true;
    } else if (type === EXEMPLAR) {
      if (field === 1) this.nextLabel(); // an exemplar's labels are not the series'
    } else if (type === WRITE_REQUEST) {
      if (field === 1) this.seriesEnd();
      else if (field === 3) this.family();
    } else if (type === METADATA && field === 2) {
      this.familyStart = start;
      this.familyEnd = end;
    }
  };

  /** A Label of the series is complete. */
  private label(): void {
    const { body, nameStart, nameEnd } = this;
    if (this.isNew(nameStart, nameEnd)) this.names.push(nameStart, nameEnd);
    else this.decoderOnly = true;
    if (this.hasValue && nameEnd - nameStart === NAME_LABEL.length && sameBytes(body, nameStart, NAME_LABEL, 0, NAME_LABEL.length)) this.named = true;
    this.nextLabel();
  }

  /** Whether no label before in the series has the name at body[start, end). */
  private isNew(start: number, end: number): boolean {
    const { body, names } = this;
    if (this.nameSet !== null || names.length >= PAIRWISE_NAMES * 2) {
      if (this.nameSet === null) {
        this.nameSet = new Set();
        for (let i = 0; i < names.length; i += 2) this.nameSet.add(body.toString('latin1', names[i] ?? 0, names[i + 1] ?? 0));
      }
      const name = body.toString('latin1', start, end);
      if (this.nameSet.has(name)) return false;
      this.nameSet.add(name);
      return true;
    }
    const length = end - start;
    for (let i = 0; i < names.length; i += 2) {
      const s = names[i] ?? 0;
      if ((names[i + 1] ?? 0) - s === length && sameBytes(body, s, body, start, length)) return false;
    }
    return true;
  }

  private nextLabel(): void {
    this.nameStart = 0;
    this.nameEnd = 0;
    this.hasValue = false;
  }

  /** A TimeSeries is complete: splitLabels would refuse it without a non-empty `__name__`. */
  private seriesEnd(): void {
    if (!this.named) this.decoderOnly = true;
    this.names.length = 0;
    this.nameSet = null;
    this.named = false;
    this.nextLabel();
  }

  /** A MetricMetadata is complete: its family is kept when named (metadataOf keeps the name as it is). */
  private family(): void {
    if (this.familyEnd > this.familyStart) this.families.add(this.body.toString('latin1', this.familyStart, this.familyEnd));
    this.familyStart = 0;
    this.familyEnd = 0;
  }
}

/** Whether a[aStart, aStart + length) and b[bStart, bStart + length) hold the same bytes. */
function sameBytes(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (a[aStart + k] !== b[bStart + k]) return false;
  return true;
}

/**
 * countRemoteWrite's answer for a 1.0 body, from the wire (the request thread's count, IngestFormat.count): its stats
 * and its store rows (samples and metadata families). Null when the decoder must read the body, and give the exact
 * count or refusal; when not null, the body has passed proto-walk.ts (FormatRequest.bodyWalked).
 */
export function wireCount(body: Buffer): { stats: ParsedMetrics['stats']; rows: number } | null {
  const counter = new Counter(body);
  if (!decodesCleanly(body, WRITE_REQUEST, counter.visit)) return null;
  if (counter.decoderOnly || counter.samples > REMOTE_WRITE_MAX_SAMPLES) return null;
  return {
    stats: { samples: counter.samples, histograms: 0, exemplars: counter.exemplars },
    rows: counter.samples + counter.families.size,
  };
}
