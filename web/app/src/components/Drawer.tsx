// A side panel over the page; Esc closes it (DESIGN §7 keyboard first).
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

export function Drawer({ title, onClose, children, actions }: { title: string; onClose: () => void; children: ComponentChildren; actions?: ComponentChildren }) {
  useEffect(() => {
    // An Escape something inside already used (an editor closing its completion list) is not for the drawer.
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape' && !e.defaultPrevented) onClose(); };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <div class="drawer" role="dialog" aria-label={title}>
      <header>
        <strong>{title}</strong>
        <span class="spacer" />
        {actions}
        <button type="button" class="ghost" aria-label="Close" onClick={onClose}>✕</button>
      </header>
      <div class="drawer-body">{children}</div>
    </div>
  );
}
