// The time picker (DESIGN §7 accessible name `Time range`): relative presets, an absolute from/to in the shown
// zone, and the range kept in the URL as `start`/`end` by the page that owns it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { PRESETS, describeRange, fromInputValue, resolveRange, toInputValue, type TimeRange } from '../lib/time';

export function TimePicker({ range, onChange }: { range: TimeRange; onChange: (r: TimeRange) => void }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const { startMs, endMs } = resolveRange(range);
  const [from, setFrom] = useState(toInputValue(startMs));
  const [to, setTo] = useState(toInputValue(endMs));
  useEffect(() => {
    if (!open) return undefined;
    const { startMs: s, endMs: e } = resolveRange(range);
    setFrom(toInputValue(s));
    setTo(toInputValue(e));
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') setOpen(false); };
    const onDown = (e: MouseEvent) => { if (box.current && !box.current.contains(e.target as Node)) setOpen(false); };
    document.addEventListener('keydown', onKey);
    document.addEventListener('mousedown', onDown);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('mousedown', onDown);
    };
  }, [open, range]);

  const pick = (r: TimeRange) => {
    onChange(r);
    setOpen(false);
  };
  const applyAbsolute = (e: Event) => {
    e.preventDefault();
    const s = fromInputValue(from);
    const t = fromInputValue(to);
    if (Number.isNaN(s) || Number.isNaN(t) || s >= t) return;
    pick({ start: new Date(s).toISOString(), end: new Date(t).toISOString() });
  };

  return (
    <div class="timepicker" ref={box} style={{ position: 'relative' }}>
      <button type="button" aria-label="Time range" aria-haspopup="dialog" aria-expanded={open} title={describeRange(range)} onClick={() => setOpen(!open)}>
        ◷ {describeRange(range)}
      </button>
      {open && (
        <div class="popover" role="dialog" aria-label="Choose time range" style={{ right: 0, top: '110%', width: '460px', display: 'flex', gap: '12px' }}>
          <ul style={{ listStyle: 'none', margin: 0, padding: 0, minWidth: '140px' }}>
            {PRESETS.map((p) => (
              <li key={p.start}>
                <button type="button" class="ghost" aria-pressed={range.start === p.start && range.end === 'now'} onClick={() => pick({ start: p.start, end: 'now' })}>{p.label}</button>
              </li>
            ))}
          </ul>
          <form onSubmit={applyAbsolute} style={{ display: 'flex', flexDirection: 'column', gap: '8px', flex: 1 }}>
            <label>From<input type="datetime-local" step="1" value={from} onInput={(e) => setFrom(e.currentTarget.value)} /></label>
            <label>To<input type="datetime-local" step="1" value={to} onInput={(e) => setTo(e.currentTarget.value)} /></label>
            <button type="submit" class="primary">Apply range</button>
          </form>
        </div>
      )}
    </div>
  );
}
