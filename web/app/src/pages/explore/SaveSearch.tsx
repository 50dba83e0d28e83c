// Save the current query as a saved search, and load one back (the saved-searches API, DESIGN §7).
import { useEffect, useState } from 'preact/hooks';
import { getJson, sendJson, tenantPath } from '../../lib/api';
import { ErrorNote } from '../../components/ErrorNote';

interface SavedSearch { id: string; name: string; query: string }

export function SaveSearch({ tenant, query, canWrite, onLoad }: { tenant: string; query: string; canWrite: boolean; onLoad: (q: string) => void }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>('');
  const [saved, setSaved] = useState<SavedSearch[]>([]);
  const [note, setNote] = useState('');
  const reload = () => getJson<{ saved_searches: SavedSearch[] }>(tenantPath(tenant, 'saved-searches')).then((r) => setSaved(r.saved_searches), () => setSaved([]));
  useEffect(() => {
    void reload();
  }, [tenant]);
  useEffect(() => {
    if (!open) return undefined;
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') setOpen(false); };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  const save = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      await sendJson('POST', tenantPath(tenant, 'saved-searches'), { name, query });
      setOpen(false);
      setName('');
      setNote(`Saved “${name}”`);
      await reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div style={{ position: 'relative', display: 'flex', gap: '6px', alignItems: 'center' }}>
      {canWrite && <button type="button" onClick={() => setOpen(!open)} aria-expanded={open}>Save search</button>}
      <select aria-label="Saved searches" value="" onChange={(e) => { const s = saved.find((x) => x.id === e.currentTarget.value); if (s) onLoad(s.query); }}>
        <option value="">Saved searches…</option>
        {saved.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
      </select>
      {note !== '' && <span class="muted" role="status">{note}</span>}
      {open && (
        <form class="popover" style={{ top: '110%', left: 0, width: '320px', display: 'flex', flexDirection: 'column', gap: '8px' }} onSubmit={(e) => void save(e)} aria-label="Save search">
          <label>Name<input required value={name} onInput={(e) => setName(e.currentTarget.value)} autoFocus /></label>
          <code class="muted">{query}</code>
          <ErrorNote error={error} />
          <button type="submit" class="primary">Save</button>
        </form>
      )}
    </div>
  );
}
