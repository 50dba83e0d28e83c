// Masking of variable parts of a log message before template mining. Drain's paper preprocesses with "simple regular
// expressions based on domain knowledge" for IPs and block ids (He et al. 2017, §III-A step 1), and Drain3
// (https://github.com/logpai/Drain3, `masking` in drain3.ini) ships the usual set: IPs, UUIDs, hex, numbers. Masking
// first means a line with a new request id is the same template as the last one without Drain having to see two
// values at that position, and it keeps ids out of the stored templates. Typed masks (`<IP>`, `<NUM>`) keep the
// template readable; Drain's own wildcards are `<*>`.

interface Mask {
  name: string;
  re: RegExp;
}

// Order matters: the longer shapes are masked before the numbers inside them.
const MASKS: readonly Mask[] = [
  { name: '<TIME>', re: /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\b/g },
  { name: '<UUID>', re: /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g },
  // IPv4 with an optional port, then IPv6 in its full or `::`-compressed forms (at least two groups and a colon pair
  // or seven colons, so a `12:30` clock time is not taken for one).
  { name: '<IP>', re: /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?!\w|\.\w)/g },
  { name: '<IP>', re: /(?<![\w:])(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}(?![\w:])|(?<![\w:])(?:[0-9a-fA-F]{1,4}:){1,6}:(?:[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4})*)?(?![\w:])/g },
  { name: '<HEX>', re: /\b0[xX][0-9a-fA-F]+\b/g },
  // Bare hex of 8+ digits with at least one decimal digit and one letter a–f: trace ids, hashes, container ids.
  { name: '<HEX>', re: /\b(?=[0-9a-fA-F]*[0-9])(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}\b/g },
  // A number standing alone (not a digit inside a word such as `v2` or `utf8`), with sign, decimals, exponent and a
  // duration or size unit stuck to it (`12ms`, `1.5s`, `300KB`).
  { name: '<NUM>', re: /(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?:ns|us|µs|ms|s|m|h|d|[kKMGT]i?B|B|%)?(?!\w|\.\w)/g },
];

/** The message with its variable parts masked (`<TIME>`, `<UUID>`, `<IP>`, `<HEX>`, `<NUM>`). */
export function maskMessage(msg: string): string {
  let out = msg;
  for (const m of MASKS) out = out.replace(m.re, m.name);
  return out;
}

/** Whitespace tokens of a masked message (Drain splits on spaces; empty tokens are dropped). */
export function tokenize(masked: string): string[] {
  return masked.split(/\s+/).filter((t) => t !== '');
}
