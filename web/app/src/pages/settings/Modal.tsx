// Settings' dialogs (DESIGN §7 Settings → API Keys: the secret shown once; rotate and revoke confirm first):
// a modal over the page that takes focus, closes on Esc, and is named for the role locators tests use.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorNote } from '../../components/ErrorNote';

export function Modal({ title, onClose, children, role = 'dialog' }: { title: string; onClose: () => void; children: ComponentChildren; role?: 'dialog' | 'alertdialog' }) {
  const box = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const before = document.activeElement;
    const first = box.current?.querySelector<HTMLElement>('[autofocus], button, input, select');
    first?.focus();
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') close.current(); };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      if (before instanceof HTMLElement) before.focus();
    };
  }, []);
  return (
    <div class="modal-backdrop">
      <div ref={box} class="modal card" role={role} aria-modal="true" aria-label={title}>
        <h2>{title}</h2>
        {children}
      </div>
    </div>
  );
}

/** Asks before something that cannot be undone; runs `action`, shows its error in place, closes on success. */
export function Confirm({ title, text, action, label, onDone, onClose }: {
  title: string; text: ComponentChildren; label: string; action: () => Promise<void>; onDone?: () => void; onClose: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>('');
  const run = async () => {
    setBusy(true);
    setError('');
    try {
      await action();
      onClose();
      onDone?.();
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return (
    <Modal title={title} onClose={onClose} role="alertdialog">
      <p>{text}</p>
      <ErrorNote error={error} />
      <div class="modal-actions">
        <button type="button" onClick={onClose}>Cancel</button>
        <button type="button" class="primary danger-fill" disabled={busy} onClick={() => void run()}>{label}</button>
      </div>
    </Modal>
  );
}

/** A secret or link shown once, with a Copy button (navigator.clipboard) and the warning that it will not return. */
export function ShowOnce({ title, value, valueLabel, warning, onClose, children }: {
  title: string; value: string; valueLabel: string; warning: string; onClose: () => void; children?: ComponentChildren;
}) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard');
    } catch (e) {
      setCopied(`Copy failed: ${e instanceof Error ? e.message : String(e)}; select the text instead`);
    }
  };
  return (
    <Modal title={title} onClose={onClose}>
      {children}
      <div class="secret-row">
        <input class="mono secret" readOnly aria-label={valueLabel} value={value} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" class="primary" onClick={() => void copy()}>Copy</button>
      </div>
      <p class="warn-note" role="note">{warning}</p>
      <div class="modal-actions">
        <span class="muted" role="status">{copied}</span>
        <span class="spacer" />
        <button type="button" onClick={onClose}>Done</button>
      </div>
    </Modal>
  );
}
