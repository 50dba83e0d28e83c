// A one-query editor on CodeMirror 6: Enter runs, Shift+Enter breaks the line, completion from the language
// extension handed in (LogsQL fields and values, PromQL metric names). Its accessible name comes from `label`.
import { useEffect, useRef } from 'preact/hooks';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, keymap, placeholder as placeholderExt } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, insertNewline } from '@codemirror/commands';
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap, completionStatus } from '@codemirror/autocomplete';
import { bracketMatching } from '@codemirror/language';

export interface CodeEditorProps {
  value: string;
  onChange: (v: string) => void;
  onRun: (v: string) => void;
  label: string;
  language: Extension;
  placeholder?: string;
  /** Called with the view once mounted, so the page can focus it on `/`. */
  onView?: (view: EditorView) => void;
}

export function CodeEditor({ value, onChange, onRun, label, language, placeholder, onView }: CodeEditorProps) {
  const box = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const handlers = useRef({ onChange, onRun });
  handlers.current = { onChange, onRun };

  useEffect(() => {
    if (!box.current) return undefined;
    const run = (v: EditorView) => {
      // Enter picks a completion when the list is open; otherwise it runs the query.
      if (completionStatus(v.state) === 'active') return false;
      handlers.current.onRun(v.state.doc.toString());
      return true;
    };
    const state = EditorState.create({
      doc: value,
      extensions: [
        history(),
        closeBrackets(),
        bracketMatching(),
        autocompletion({ activateOnTyping: true, icons: false }),
        keymap.of([
          { key: 'Enter', run },
          { key: 'Shift-Enter', run: insertNewline },
          ...closeBracketsKeymap, ...completionKeymap, ...historyKeymap, ...defaultKeymap,
        ]),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.updateListener.of((u) => { if (u.docChanged) handlers.current.onChange(u.state.doc.toString()); }),
        placeholderExt(placeholder ?? ''),
        language,
      ],
    });
    const v = new EditorView({ state, parent: box.current });
    view.current = v;
    onView?.(v);
    return () => {
      v.destroy();
      view.current = null;
    };
    // The editor is built once; `value` changes from outside are applied below.
  }, [language, label]);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  return <div class="code-editor grow" ref={box} />;
}
