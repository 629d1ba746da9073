// A one-line progress bar for long runs on an interactive terminal. It stays
// silent in CI, in pipes, on dumb terminals and for runs under a second, so
// logs and captured output never see it. No timers: it only redraws inside
// update(), so it can never keep the process alive.

export interface ProgressSink {
  update(phase: string, done: number, total: number): void;
  end(): void;
}

/** A sink that does nothing; what createProgress returns when drawing is off. */
export const NO_PROGRESS: ProgressSink = Object.freeze({
  update(): void {},
  end(): void {},
});

export interface ProgressOptions {
  stream: { isTTY?: boolean; columns?: number; write(s: string): unknown };
  env: NodeJS.ProcessEnv;
  /** Injected clock in ms, default Date.now (tests pass a fake). */
  now?: () => number;
  /** Only draw once the run has lasted this long (default 1000 ms). */
  delayMs?: number;
  /** Minimum ms between redraws (default 100). */
  intervalMs?: number;
}

const DEFAULT_COLUMNS = 80;
const MAX_BAR = 30;
const MIN_BAR = 5;
/** Phase characters the bar leaves room for before it starts shrinking. */
const MIN_PHASE = 12;
const CLEAR_TO_EOL = '\x1b[K';

/** True when a progress bar may be drawn on `stream` under `env`. */
export function progressEnabled(stream: ProgressOptions['stream'], env: NodeJS.ProcessEnv): boolean {
  if (stream.isTTY !== true) return false;
  const ci = (env.CI ?? '').trim().toLowerCase();
  if (ci !== '' && ci !== 'false' && ci !== '0') return false;
  if (env.TERM === 'dumb') return false;
  if ((env.KYMA_FLEET_NO_PROGRESS ?? '') !== '') return false;
  return true;
}

export function createProgress(options: ProgressOptions): ProgressSink {
  const { stream, env } = options;
  if (!progressEnabled(stream, env)) return NO_PROGRESS;

  const now = options.now ?? Date.now;
  const delayMs = nonNegative(options.delayMs, 1000);
  const intervalMs = nonNegative(options.intervalMs, 100);
  const start = now();

  let ended = false;
  let drawn = false;
  let lastDrawAt: number | undefined;
  let lastPhase: string | undefined;
  let lastLine: string | undefined;

  return {
    update(phase: string, done: number, total: number): void {
      if (ended) return;
      const t = now();
      if (t - start < delayMs) return;

      const tot = toCount(total);
      const dn = Math.min(toCount(done), tot);
      const force = phase !== lastPhase || dn === tot;
      if (!force && lastDrawAt !== undefined && t - lastDrawAt < intervalMs) return;

      const line = formatProgressLine(phase, dn, tot, stream.columns);
      lastPhase = phase;
      lastDrawAt = t;
      if (line === lastLine) return;
      lastLine = line;
      drawn = true;
      stream.write(`\r${line}${CLEAR_TO_EOL}`);
    },
    end(): void {
      if (ended) return;
      ended = true;
      if (drawn) stream.write(`\r${CLEAR_TO_EOL}`);
    },
  };
}

/**
 * `<phase> [#####-----] 1,234/10,000 12%`, never longer than columns-1
 * characters: the bar shrinks (and disappears) first, then the phase is
 * truncated with '…'. Exported for tests.
 */
export function formatProgressLine(phase: string, done: number, total: number, columns?: number): string {
  const tot = toCount(total);
  const dn = Math.min(toCount(done), tot);
  const cols = columns !== undefined && Number.isFinite(columns) && columns >= 1 ? Math.floor(columns) : DEFAULT_COLUMNS;
  const width = cols - 1;

  const pct = tot === 0 ? 100 : Math.floor((dn * 100) / tot);
  const tail = `${formatCount(dn)}/${formatCount(tot)} ${pct}%`;
  const name = Array.from(phase.replace(/[\x00-\x1f\x7f-\x9f]/g, ' '));

  // Room for "<phase> [<bar>] " in front of the tail.
  const room = width - tail.length - 1;
  let bar = Math.min(MAX_BAR, room - 3 - Math.min(name.length, MIN_PHASE));
  if (bar < MIN_BAR) bar = 0;

  let line: string;
  if (bar > 0) {
    const filled = tot === 0 ? bar : Math.floor((bar * dn) / tot);
    const barText = `[${'#'.repeat(filled)}${'-'.repeat(bar - filled)}]`;
    line = joinParts(truncate(name, room - bar - 3), `${barText} ${tail}`);
  } else {
    line = joinParts(truncate(name, room), tail);
  }
  // Only on absurdly narrow terminals does the tail itself not fit.
  return line.length > width ? Array.from(line).slice(0, Math.max(0, width)).join('') : line;
}

/** Integer with comma thousand separators, independent of locale. */
export function formatCount(n: number): string {
  const digits = String(toCount(n));
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function joinParts(phase: string, rest: string): string {
  return phase === '' ? rest : `${phase} ${rest}`;
}

function truncate(chars: string[], max: number): string {
  if (chars.length <= max) return chars.join('');
  if (max <= 0) return '';
  return `${chars.slice(0, max - 1).join('')}…`;
}

function toCount(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

function nonNegative(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}
