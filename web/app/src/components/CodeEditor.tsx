// A one-query editor on CodeMirror 6: Enter runs, Shift+Enter breaks the line, completion from the language
// extension handed in (LogsQL fields and values, PromQL metric names). Its accessible name comes from `label`.
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { Annotation, EditorState, type Extension } from '@codemirror/state';
import { EditorView, keymap, placeholder as placeholderExt } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, insertNewline } from '@codemirror/commands';
import {
  acceptCompletion, autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap, completionStatus, currentCompletions,
} from '@codemirror/autocomplete';
import { bracketMatching } from '@codemirror/language';

/** Marks a document set from the `value` prop, so that it is not echoed back through `onChange`. */
const fromValue = Annotation.define<boolean>();

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
      // Enter picks a completion when the list is open, also while it refreshes for the next keystroke (status
      // `pending`, which the completion keymap alone would pass on as a newline); otherwise it runs the query.
      if (currentCompletions(v.state).length > 0 || completionStatus(v.state) === 'active') {
        acceptCompletion(v);
        return true;
      }
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
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !u.transactions.some((t) => t.annotation(fromValue) === true)) handlers.current.onChange(u.state.doc.toString());
        }),
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

  // A layout effect, so `value` lands right after its render: a plain effect can run late (Preact flushes it at
  // the next render) with a value older than what was typed since, overwrite the typing and echo it back,
  // and fast typing then ping-pongs two values in a render loop that freezes the page.
  useLayoutEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value }, annotations: fromValue.of(true) });
  }, [value]);

  return <div class="code-editor grow" ref={box} />;
}
