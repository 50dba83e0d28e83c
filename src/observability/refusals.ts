// Every refusal has a reason, counted per tenant (STYLE.md habit 5; issue 3 item 9), and shown in
// Prometheus text format on the app door's /metrics.
import type { RefusalReason } from '../errors.js';

export class RefusalCounter {
  private readonly counts = new Map<string, number>();

  count(tenantId: string, reason: RefusalReason): void {
    const key = `${tenantId}\u0000${reason}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Lines of `sightline_refusals_total{tenant="…",reason="…"} N`. */
  render(): string {
    const lines = [
      '# HELP sightline_refusals_total Requests refused, by tenant and reason.',
      '# TYPE sightline_refusals_total counter',
    ];
    for (const [key, n] of [...this.counts].sort(([a], [b]) => a.localeCompare(b))) {
      const [tenant = '', reason = ''] = key.split('\u0000');
      lines.push(`sightline_refusals_total{tenant="${escapeLabel(tenant)}",reason="${reason}"} ${n}`);
    }
    return lines.join('\n') + '\n';
  }
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
