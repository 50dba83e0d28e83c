// A MetricsIntent → PromQL (issue 10 item 2): `histogram_quantile(0.99, sum by (le) (rate(x_bucket[5m])))` for a
// percentile, `sum by (service) (rate(x_total[5m]))` for a counter, `topk(3, …)` for top-N. The rate window is
// Grafana's usual 5m: four scrapes at the common 15 s interval, so a rate exists even with one scrape missed.
import type { MetricsIntent } from './metrics-reader.js';

const RATE_WINDOW = '5m';

function selector(i: MetricsIntent, name: string): string {
  const m = i.matchers.map((x) => `${x.label}${x.op}${JSON.stringify(x.value)}`).join(', ');
  return m === '' ? name : `${name}{${m}}`;
}

function aggregate(op: string, by: string[], inner: string): string {
  return by.length === 0 ? `${op}(${inner})` : `${op} by (${by.join(', ')}) (${inner})`;
}

/** The intent as PromQL. */
export function renderPromql(i: MetricsIntent): string {
  let expr: string;
  if (i.kind === 'histogram') {
    const base = i.metric.replace(/_bucket$/, '');
    if (i.mean) {
      expr = `${aggregate('sum', i.groupBy, `rate(${selector(i, `${base}_sum`)}[${RATE_WINDOW}])`)} / ` +
        aggregate('sum', i.groupBy, `rate(${selector(i, `${base}_count`)}[${RATE_WINDOW}])`);
    } else {
      expr = `histogram_quantile(${i.quantile ?? 0.95}, ${aggregate('sum', ['le', ...i.groupBy], `rate(${selector(i, i.metric)}[${RATE_WINDOW}])`)})`;
    }
  } else if (i.kind === 'counter') {
    const fn = i.increaseOver === undefined ? `rate(${selector(i, i.metric)}[${RATE_WINDOW}])` : `increase(${selector(i, i.metric)}[${i.increaseOver}])`;
    expr = aggregate(i.agg, i.groupBy, fn);
  } else {
    expr = aggregate(i.agg, i.groupBy, selector(i, i.metric));
  }
  return i.topk === undefined ? expr : `topk(${i.topk}, ${expr})`;
}
