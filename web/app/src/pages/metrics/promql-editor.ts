// PromQL in the shared CodeEditor (DESIGN §7 Metrics: "PromQL editor with completion"): Prometheus's own
// @prometheus-io/codemirror-promql parses, lints and completes, with metric names and labels read from the
// tenant's Prometheus API (`series`, `labels`, `label/<n>/values`, `metadata` under
// /api/v1/tenants/<t>/prometheus). Its fetches stay same-origin with the session cookie and carry
// `X-Requested-With: sightline`, as every request of the app does (lib/api.ts).
import type { Extension } from '@codemirror/state';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import { PromQLExtension } from '@prometheus-io/codemirror-promql';
import { tenantPath } from '../../lib/api';
import './promql.css';

const highlight = HighlightStyle.define([
  { tag: tags.string, class: 'tok-str' },
  { tag: tags.number, class: 'tok-num' },
  { tag: tags.labelName, class: 'tok-field' },
  { tag: [tags.function(tags.variableName), tags.operatorKeyword], class: 'tok-fn' },
  { tag: [tags.modifier, tags.logicOperator], class: 'tok-op' },
  { tag: tags.comment, class: 'tok-comment' },
]);

export interface PromqlLanguage {
  extension: Extension;
  /** Aborts the completion requests still in flight (the page or panel editor goes away). */
  destroy: () => void;
}

export function promqlLanguage(tenant: string): PromqlLanguage {
  const promql = new PromQLExtension().setComplete({
    remote: {
      // The client appends `/api/v1/labels` and so on to this prefix.
      url: tenantPath(tenant, 'prometheus'),
      httpMethod: 'GET',
      requestHeaders: new Headers({ 'X-Requested-With': 'sightline' }),
      fetchFn: (input, init) => fetch(input, { ...init, credentials: 'same-origin' }),
      cache: { maxAge: 60_000 },
    },
  });
  return { extension: [promql.asExtension(), syntaxHighlighting(highlight)], destroy: () => promql.destroy() };
}
