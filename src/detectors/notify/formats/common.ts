// What the three payload formats share: Alertmanager's time encoding, its common labels and annotations of a group
// (template/template.go Data: the pairs every alert of the group has alike), and the group status.
import type { AlertNotice } from '../../notify-model.js';

/** Go's zero time.Time as Alertmanager marshals it: the `endsAt` of an alert that has not ended. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** RFC 3339 in UTC, as Go's time.Time marshals it (ms precision). */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString();
}

/** Alertmanager's `status` of a group: `firing` while any of its alerts fires, `resolved` once none does. */
export function groupStatus(notices: readonly AlertNotice[]): 'firing' | 'resolved' {
  return notices.some((n) => n.status === 'firing') ? 'firing' : 'resolved';
}

/** The key/value pairs present, with the same value, in every map (Alertmanager's commonLabels). */
export function common(maps: readonly Record<string, string>[]): Record<string, string> {
  const [first, ...rest] = maps;
  if (!first) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(first)) if (rest.every((m) => m[k] === v)) out[k] = v;
  return out;
}

/** Sorted by key, so a payload reads the same every time. */
export function sortedMap(m: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `{a="x", b="y"}`: a label set as Alertmanager prints one (model.LabelSet.String, values Go-quoted). */
export function labelSetText(m: Record<string, string>): string {
  return `{${Object.entries(sortedMap(m)).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')}}`;
}

/** The alert's name (`alertname`), falling back to the detector id. */
export function alertName(notices: readonly AlertNotice[]): string {
  const first = notices[0];
  return first?.alert.labels.alertname ?? first?.detectorId ?? 'alert';
}

/** The app's base URL as Alertmanager's `externalURL`: the origin of the alerts' link back, when there is one. */
export function externalUrl(notices: readonly AlertNotice[]): string {
  for (const n of notices) {
    try {
      return `${new URL(n.generatorUrl).origin}/`;
    } catch {
      // not a URL: try the next one
    }
  }
  return '';
}
