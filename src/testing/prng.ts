// The seeded generator every test-data generator draws from (detectors' and the AI features' known-answer data, the
// PromQL agreement fixture): mulberry32, small and fast, so every run builds the same values. Not for anything secret.

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
