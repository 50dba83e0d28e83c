// The session replay player (DESIGN §7 Replays: rrweb player). rrweb-player has no release for rrweb 2.x, so
// the controls are ours around rrweb's Replayer: play/pause, a seek bar with the time and the errors marked on
// it, speed 1×/2×/4×, skip inactivity. The Replayer and its CSS load on first use (rrweb-load.ts), in their own
// chunk. Keys on the player: Space plays or pauses, ←/→ step 5 s. `jump` seeks to a moment (a RUM error).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { eventWithTime } from 'rrweb';
import { ErrorNote } from '../../components/ErrorNote';
import { clock, type RrwebEvent } from './replays-api';

type ReplayerType = InstanceType<typeof import('rrweb').Replayer>;

const SPEEDS = [1, 2, 4];
/** What ←/→ move the replay by. */
const STEP_MS = 5000;
const MAX_HEIGHT_RATIO = 0.62;

export interface Marker {
  offsetMs: number;
  label: string;
}

export interface PlayerProps {
  events: RrwebEvent[];
  markers: Marker[];
  jump: { offsetMs: number; seq: number } | null;
  initialMs: number;
  /** The moment shown when playback stops or is moved by hand (for the URL). */
  onMoment: (offsetMs: number) => void;
}

export function Player({ events, markers, jump, initialMs, onMoment }: PlayerProps) {
  const stage = useRef<HTMLDivElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const player = useRef<ReplayerType | null>(null);
  const [error, setError] = useState<unknown>('');
  const [ready, setReady] = useState(false);
  const [playing, setPlaying] = useState(false);
  const [current, setCurrent] = useState(0);
  const [total, setTotal] = useState(0);
  const [speed, setSpeed] = useState(1);
  const [skip, setSkip] = useState(true);
  const [skipping, setSkipping] = useState(false);
  const [size, setSize] = useState({ width: 1024, height: 768 });
  const [avail, setAvail] = useState({ width: 800, height: 600 });

  useEffect(() => {
    let live = true;
    let replayer: ReplayerType | null = null;
    setReady(false);
    setError('');
    import('./rrweb-load').then(({ Replayer }) => {
      if (!live || !stage.current) return;
      // rrweb refuses a recording of fewer than two events (a session cut short before its first snapshot).
      const r = new Replayer(events as unknown as eventWithTime[], {
        root: stage.current, skipInactive: skip, speed, showWarning: false, mouseTail: false, triggerFocus: false,
      });
      replayer = r;
      player.current = r;
      r.on('finish', () => {
        setPlaying(false);
        setCurrent(r.getMetaData().totalTime);
      });
      r.on('resize', (d) => {
        const dim = d as { width?: number; height?: number };
        if (typeof dim.width === 'number' && typeof dim.height === 'number' && dim.width > 0 && dim.height > 0) setSize({ width: dim.width, height: dim.height });
      });
      r.on('skip-start', () => setSkipping(true));
      r.on('skip-end', () => setSkipping(false));
      const meta = r.getMetaData();
      setTotal(meta.totalTime);
      const first = events.find((e) => e.type === 4)?.data as { width?: number; height?: number } | undefined;
      if (first?.width && first.height) setSize({ width: first.width, height: first.height });
      const at = Math.min(Math.max(0, initialMs), meta.totalTime);
      r.pause(at);
      setCurrent(at);
      setReady(true);
    }).catch((e: unknown) => { if (live) setError(e); });
    return () => {
      live = false;
      replayer?.destroy();
      player.current = null;
      setPlaying(false);
    };
    // The replayer is built once per session; speed and skip changes go through setConfig below.
  }, [events]);

  // The stage's room decides the scale of the recorded viewport.
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const measure = () => setAvail({ width: el.clientWidth, height: window.innerHeight * MAX_HEIGHT_RATIO });
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    measure();
    return () => observer.disconnect();
  }, []);
  const scale = Math.min(1, avail.width / size.width, avail.height / size.height);
  useEffect(() => stage.current?.style.setProperty('--replay-scale', String(scale)), [scale]);

  useEffect(() => {
    if (!playing) return undefined;
    const timer = setInterval(() => {
      const r = player.current;
      if (r) setCurrent(Math.min(r.getCurrentTime(), total));
    }, 100);
    return () => clearInterval(timer);
  }, [playing, total]);

  const seek = (ms: number, keepPlaying = playing) => {
    const r = player.current;
    if (!r) return;
    const at = Math.min(Math.max(0, ms), total);
    if (keepPlaying) r.play(at); else r.pause(at);
    setCurrent(at);
    setPlaying(keepPlaying);
    if (!keepPlaying) onMoment(at);
  };

  useEffect(() => {
    if (jump && ready) seek(jump.offsetMs, false);
  }, [jump?.seq, ready]);

  const toggle = () => {
    const r = player.current;
    if (!r) return;
    if (playing) {
      r.pause();
      const at = r.getCurrentTime();
      setCurrent(at);
      setPlaying(false);
      onMoment(at);
    } else {
      r.play(current >= total ? 0 : current);
      setPlaying(true);
    }
  };
  const changeSpeed = (s: number) => {
    setSpeed(s);
    player.current?.setConfig({ speed: s });
  };
  const changeSkip = (on: boolean) => {
    setSkip(on);
    player.current?.setConfig({ skipInactive: on });
  };
  const onKey = (e: KeyboardEvent) => {
    const target = e.target as HTMLElement;
    if (target.tagName === 'INPUT' || target.tagName === 'BUTTON') return;
    if (e.key === ' ') {
      e.preventDefault();
      toggle();
    } else if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      seek(current + (e.key === 'ArrowRight' ? STEP_MS : -STEP_MS));
    }
  };

  return (
    <section class="player" aria-label="Player" tabIndex={0} onKeyDown={onKey}>
      <ErrorNote error={error} />
      <div class="player-box" ref={box}>
        {!ready && error === '' && <div class="progress" role="progressbar" aria-label="Loading player" />}
        <div class="player-screen" ref={stage} style={{ width: `${size.width * scale}px`, height: `${size.height * scale}px` }} />
      </div>
      <div class="player-controls">
        <button type="button" class="primary play" onClick={toggle} disabled={!ready} aria-label={playing ? 'Pause' : 'Play'}>
          {playing ? '❚❚' : '▶'}
        </button>
        <span class="mono player-time" role="timer" aria-label="Playback time">{clock(current, true)} / {clock(total, true)}</span>
        <div class="seek">
          <input type="range" aria-label="Seek" min={0} max={Math.max(1, total)} step="any" value={current} disabled={!ready}
            aria-valuetext={`${clock(current)} of ${clock(total)}`} onInput={(e) => seek(Number(e.currentTarget.value))}
            onKeyDown={(e) => {
              if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
              e.preventDefault();
              seek(current + (e.key === 'ArrowRight' ? STEP_MS : -STEP_MS));
            }} />
          <div class="seek-marks" aria-hidden="true">
            {markers.map((m, i) => (
              <span key={i} class="seek-mark" title={`${clock(m.offsetMs, true)} ${m.label}`}
                style={{ left: `${total > 0 ? Math.min(100, Math.max(0, (m.offsetMs / total) * 100)) : 0}%` }} />
            ))}
          </div>
        </div>
        <div class="speeds" role="group" aria-label="Speed">
          {SPEEDS.map((s) => <button key={s} type="button" class="small" aria-pressed={speed === s} onClick={() => changeSpeed(s)}>{s}×</button>)}
        </div>
        <label class="field-inline skip">
          <input type="checkbox" checked={skip} onChange={(e) => changeSkip(e.currentTarget.checked)} />Skip inactivity
        </label>
        {skipping && <span class="muted" role="status">Skipping inactivity…</span>}
      </div>
    </section>
  );
}
