// Random OTLP logs and traces requests for the tests that hold the protobuf readers (decoded messages, the wire) to the
// tree readers: every AnyValue kind, 64-bit edges, unset and explicitly default fields, odd ids and keys (a
// `__proto__` one, an empty one).
import { mulberry32 } from '../../testing/prng.js';

/** The pieces both signals' requests are made of, drawn from `rnd`. */
function otlpPieces(rnd: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const maybe = (p: number) => rnd() < p;
  const ints = ['0', '1', '-1', '5', '2147483647', '2147483648', '-2147483648', '-2147483649', '4294967296',
    '9007199254740991', '9007199254740992', '-9007199254740993', '9223372036854775807', '-9223372036854775808'];
  const times = ['0', '1', '1700000000000000000', '18446744073709551615', '4294967295', '4294967296'];
  const keys = ['a', 'service.name', 'host.name', '', '__proto__', 'telemetry.sdk.language', 'é', 'x.y'];
  const anyValue = (depth: number): Record<string, unknown> => {
    switch (Math.floor(rnd() * (depth > 2 ? 6 : 8))) {
      case 0: return { stringValue: pick(['', 'text', 'webjs', 'é中😀']) };
      case 1: return { boolValue: maybe(0.5) };
      case 2: return { intValue: pick(ints) };
      case 3: return { doubleValue: pick([0, 1.5, -2.25, Number.NaN, Number.POSITIVE_INFINITY, 1e300]) };
      case 4: return { bytesValue: Buffer.from(pick(['', 'ab', 'bytes!'])) };
      case 5: return {};
      case 6: return { arrayValue: { values: Array.from({ length: Math.floor(rnd() * 3) }, () => anyValue(depth + 1)) } };
      default: return { kvlistValue: { values: Array.from({ length: Math.floor(rnd() * 3) }, () => keyValue(depth + 1)) } };
    }
  };
  const keyValue = (depth: number): Record<string, unknown> =>
    ({ ...(maybe(0.9) ? { key: pick(keys) } : {}), ...(maybe(0.9) ? { value: anyValue(depth) } : {}) });
  const attributes = () => Array.from({ length: Math.floor(rnd() * 4) }, () => keyValue(0));
  const id = (bytes: number) => pick([Buffer.alloc(0), Buffer.alloc(bytes), Buffer.alloc(bytes, 0xab), Buffer.alloc(bytes - 1, 1)]);
  return { rnd, pick, maybe, times, anyValue, attributes, id };
}

/** A generator of ExportLogsServiceRequest trees (protobufjs input: camelCase keys, 64-bit values as text). */
export function logsRequests(seed: number): () => Record<string, unknown> {
  const { rnd, pick, maybe, times, anyValue, attributes, id } = otlpPieces(mulberry32(seed));
  const record = (): Record<string, unknown> => ({
    ...(maybe(0.8) ? { timeUnixNano: pick(times) } : {}),
    ...(maybe(0.5) ? { observedTimeUnixNano: pick(times) } : {}),
    ...(maybe(0.7) ? { severityNumber: pick([0, 1, 9, 13, 17, 24, 99]) } : {}),
    ...(maybe(0.5) ? { severityText: pick(['', 'INFO', 'warn']) } : {}),
    ...(maybe(0.9) ? { body: anyValue(0) } : {}),
    attributes: attributes(),
    ...(maybe(0.6) ? { traceId: id(16) } : {}),
    ...(maybe(0.6) ? { spanId: id(8) } : {}),
    ...(maybe(0.3) ? { eventName: pick(['', 'click']) } : {}),
  });
  return () => ({
    resourceLogs: Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => ({
      ...(maybe(0.8) ? { resource: { attributes: attributes() } } : {}),
      scopeLogs: Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => ({
        ...(maybe(0.7) ? { scope: { ...(maybe(0.7) ? { name: 'lib' } : {}), ...(maybe(0.5) ? { version: '1.2' } : {}), attributes: attributes() } } : {}),
        logRecords: Array.from({ length: Math.floor(rnd() * 4) }, record),
      })),
    })),
  });
}

/** A generator of ExportTraceServiceRequest trees: spans with every id shape, events, links, status and trace state. */
export function tracesRequests(seed: number): () => Record<string, unknown> {
  const { rnd, pick, maybe, times, attributes, id } = otlpPieces(mulberry32(seed));
  const span = (): Record<string, unknown> => ({
    ...(maybe(0.95) ? { traceId: id(16) } : {}),
    ...(maybe(0.95) ? { spanId: id(8) } : {}),
    ...(maybe(0.5) ? { parentSpanId: id(8) } : {}),
    ...(maybe(0.3) ? { traceState: pick(['', 'k=v']) } : {}),
    ...(maybe(0.8) ? { name: pick(['', 'GET /x']) } : {}),
    ...(maybe(0.7) ? { kind: pick([0, 2, 5, 9]) } : {}),
    ...(maybe(0.8) ? { startTimeUnixNano: pick(times) } : {}),
    ...(maybe(0.8) ? { endTimeUnixNano: pick(times) } : {}),
    attributes: attributes(),
    events: Array.from({ length: Math.floor(rnd() * 3) }, () => ({
      ...(maybe(0.7) ? { timeUnixNano: pick(times) } : {}), ...(maybe(0.7) ? { name: 'e' } : {}), attributes: attributes(),
    })),
    links: Array.from({ length: Math.floor(rnd() * 3) }, () => ({
      ...(maybe(0.9) ? { traceId: id(16) } : {}), ...(maybe(0.9) ? { spanId: id(8) } : {}),
      ...(maybe(0.3) ? { traceState: 'a=b' } : {}), attributes: attributes(),
    })),
    ...(maybe(0.6) ? { status: { ...(maybe(0.7) ? { code: pick([0, 1, 2]) } : {}), ...(maybe(0.5) ? { message: pick(['', 'bad']) } : {}) } } : {}),
  });
  return () => ({
    resourceSpans: Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => ({
      ...(maybe(0.8) ? { resource: { attributes: attributes() } } : {}),
      scopeSpans: Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => ({
        ...(maybe(0.7) ? { scope: { ...(maybe(0.7) ? { name: 'lib' } : {}), ...(maybe(0.5) ? { version: '1.2' } : {}), attributes: attributes() } } : {}),
        spans: Array.from({ length: Math.floor(rnd() * 4) }, span),
      })),
    })),
  });
}
