// An alert's identity (DESIGN §8): its label set — the group-by values, the detector's own labels, and `alertname`,
// `detector`, `tenant`, which nothing overrides — and its fingerprint, computed exactly as Alertmanager computes
// one (prometheus/common model.LabelSet.Fingerprint: FNV-1a 64 over the sorted names and values, each followed by
// the separator byte 0xff, printed as 16 hex digits), so a receiver that keys alerts by fingerprint agrees with us.

/** Labels the engine sets on every alert; a group-by field or a detector label of the same name is overridden. */
export const RESERVED_LABELS = ['alertname', 'detector', 'tenant'] as const;

export function alertLabels(
  detector: { id: string; name: string; tenantId: string; labels: Readonly<Record<string, string>> },
  groupLabels: Readonly<Record<string, string>>,
): Record<string, string> {
  // Precedence as in Prometheus (a rule's labels overwrite the series' labels), then the reserved ones.
  const merged: Record<string, string> = { ...groupLabels, ...detector.labels, alertname: detector.name, detector: detector.id, tenant: detector.tenantId };
  // Prometheus drops empty labels: an empty value is no label, so `{service=""}` and `{}` are one alert.
  const out: Record<string, string> = {};
  for (const k of Object.keys(merged).sort()) {
    const v = merged[k];
    if (v !== undefined && v !== '') out[k] = v;
  }
  return out;
}

const OFFSET64 = 0xcbf29ce484222325n;
const PRIME64 = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;
const SEPARATOR = 0xff;
const encoder = new TextEncoder();

function fnvAdd(h: bigint, bytes: Uint8Array): bigint {
  let x = h;
  for (const b of bytes) x = ((x ^ BigInt(b)) * PRIME64) & MASK64;
  return x;
}

function fnvAddByte(h: bigint, b: number): bigint {
  return ((h ^ BigInt(b)) * PRIME64) & MASK64;
}

/** Alertmanager's fingerprint of a label set: stable, independent of key order. */
export function fingerprint(labels: Readonly<Record<string, string>>): string {
  let h = OFFSET64;
  // Go sorts label names by byte order; for the names labels may have (ASCII) that is code-unit order.
  for (const name of Object.keys(labels).sort()) {
    h = fnvAddByte(fnvAdd(h, encoder.encode(name)), SEPARATOR);
    h = fnvAddByte(fnvAdd(h, encoder.encode(labels[name] ?? '')), SEPARATOR);
  }
  return h.toString(16).padStart(16, '0');
}
