// A row or span as indented JSON with keys, strings and numbers coloured.
export function JsonView({ value }: { value: unknown }) {
  const text = JSON.stringify(value, null, 2);
  const parts: preact.JSX.Element[] = [];
  const re = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;
  let last = 0;
  let m: RegExpExecArray | null;
  let i = 0;
  while ((m = re.exec(text)) !== null) {
    if (m.index > last) parts.push(<span key={i++}>{text.slice(last, m.index)}</span>);
    if (m[1] !== undefined) parts.push(<span key={i++} class={m[2] !== undefined ? 'json-key' : 'json-str'}>{m[1]}</span>, <span key={i++}>{m[2] ?? ''}</span>);
    else parts.push(<span key={i++} class="json-num">{m[0]}</span>);
    last = m.index + m[0].length;
  }
  parts.push(<span key={i}>{text.slice(last)}</span>);
  return <pre class="json" aria-label="JSON">{parts}</pre>;
}
