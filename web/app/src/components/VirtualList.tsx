// A list that renders only the rows in view (DESIGN §7 Speed: 10,000 rows scroll without dropping frames).
// Rows have one fixed height, so the window is plain arithmetic on scrollTop. Up to ALL_ROWS items are all in the
// page (one `row` per entry, as DESIGN §7 names the results; find-in-page works), past that only those in view.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

const ALL_ROWS = 500;

export interface VirtualListProps<T> {
  items: readonly T[];
  rowHeight: number;
  renderRow: (item: T, index: number) => ComponentChildren;
  label: string;
  header?: ComponentChildren;
  overscan?: number;
}

export function VirtualList<T>({ items, rowHeight, renderRow, label, header, overscan = 12 }: VirtualListProps<T>) {
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    setHeight(el.clientHeight);
    return () => observer.disconnect();
  }, []);
  useEffect(() => {
    // A new result starts at the top.
    if (box.current) box.current.scrollTop = 0;
    setScrollTop(0);
  }, [items]);
  const all = items.length <= ALL_ROWS;
  const first = all ? 0 : Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = all ? items.length : Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  const visible: ComponentChildren[] = [];
  for (let i = first; i < last; i++) {
    const item = items[i];
    if (item !== undefined) visible.push(renderRow(item, i));
  }
  return (
    <div class="vlist" ref={box} role="table" aria-label={label} aria-rowcount={items.length} onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}>
      {header}
      <div role="rowgroup" style={{ height: `${items.length * rowHeight}px`, position: 'relative' }}>
        <div style={{ transform: `translateY(${first * rowHeight}px)` }}>{visible}</div>
      </div>
    </div>
  );
}
