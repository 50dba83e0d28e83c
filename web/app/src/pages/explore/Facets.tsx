// The fields of the matching entries with their top values (the `facets` API); a click adds `field:value` to
// the query, Alt+click excludes it.
import { useEffect, useState } from 'preact/hooks';
import { facets, isQueryError, type FacetsReply, type Range } from './explore-api';
import { quoteValue } from '../../lib/logsql-lang';
import { ErrorNote } from '../../components/ErrorNote';

export function Facets({ tenant, query, range, runId, onPick }: { tenant: string; query: string; range: Range; runId: number; onPick: (filter: string) => void }) {
  const [reply, setReply] = useState<FacetsReply | null>(null);
  const [error, setError] = useState<unknown>('');
  const [open, setOpen] = useState<Record<string, boolean>>({ service: true, level: true });
  useEffect(() => {
    const ctl = new AbortController();
    setError('');
    facets(tenant, query, range, ctl.signal).then(setReply, (e: unknown) => { if (!ctl.signal.aborted) setError(e); });
    return () => ctl.abort();
  }, [tenant, query, range.start, range.end, runId]);
  return (
    <aside class="facets" aria-label="Fields">
      <h3>Fields</h3>
      {!isQueryError(error) && <ErrorNote error={error} />}
      {!reply && error === '' && <div class="progress" role="progressbar" aria-label="Loading fields" />}
      {reply?.facets.length === 0 && <div class="muted">No fields in this range.</div>}
      {reply?.facets.map((f) => {
        const isOpen = open[f.field_name] ?? false;
        return (
          <div class="facet" key={f.field_name}>
            <button type="button" class="ghost facet-name" aria-expanded={isOpen} onClick={() => setOpen({ ...open, [f.field_name]: !isOpen })}>
              {isOpen ? '▾' : '▸'} {f.field_name}
            </button>
            {isOpen && (
              <ul>
                {f.values.map((v) => (
                  <li key={v.field_value}>
                    <button type="button" class="ghost facet-value" title={`Add ${f.field_name}:${v.field_value} (Alt: exclude)`}
                      onClick={(e) => onPick(`${e.altKey ? '-' : ''}${f.field_name}:${quoteValue(v.field_value)}`)}>
                      <span class="facet-text">{v.field_value === '' ? '(empty)' : v.field_value}</span>
                      <span class="muted num">{v.hits.toLocaleString()}</span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </div>
        );
      })}
    </aside>
  );
}
