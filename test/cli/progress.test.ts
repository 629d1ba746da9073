import { describe, expect, it } from 'vitest';
import {
  NO_PROGRESS,
  createProgress,
  formatCount,
  formatProgressLine,
  type ProgressOptions,
} from '../../src/cli/progress';

const CLEAR = '\x1b[K';

class FakeStream {
  readonly writes: string[] = [];
  constructor(
    public isTTY: boolean | undefined = true,
    public columns: number | undefined = 80,
  ) {}
  write(s: string): boolean {
    this.writes.push(s);
    return true;
  }
}

class FakeClock {
  t = 5_000;
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

function setup(overrides: Partial<ProgressOptions> & { tty?: boolean; columns?: number } = {}) {
  const stream = new FakeStream(overrides.tty ?? true, overrides.columns ?? 80);
  const clock = new FakeClock();
  const progress = createProgress({
    stream,
    env: overrides.env ?? {},
    now: clock.now,
    delayMs: overrides.delayMs,
    intervalMs: overrides.intervalMs,
  });
  return { stream, clock, progress };
}

/** The visible line of a redraw: strips the leading \r and trailing clear-to-EOL. */
function visible(write: string): string {
  expect(write.startsWith('\r')).toBe(true);
  expect(write.endsWith(CLEAR)).toBe(true);
  return write.slice(1, -CLEAR.length);
}

describe('createProgress: when it draws at all', () => {
  it.each([
    { name: 'not a TTY', tty: false, env: {} },
    { name: 'CI=true', tty: true, env: { CI: 'true' } },
    { name: 'CI=1', tty: true, env: { CI: '1' } },
    { name: 'CI=yes', tty: true, env: { CI: 'yes' } },
    { name: 'TERM=dumb', tty: true, env: { TERM: 'dumb' } },
    { name: 'KYMA_FLEET_NO_PROGRESS=1', tty: true, env: { KYMA_FLEET_NO_PROGRESS: '1' } },
    { name: 'KYMA_FLEET_NO_PROGRESS=0 (any non-empty value)', tty: true, env: { KYMA_FLEET_NO_PROGRESS: '0' } },
  ])('is silent when $name', ({ tty, env }) => {
    const { stream, clock, progress } = setup({ tty, env });
    expect(progress).toBe(NO_PROGRESS);
    clock.advance(10_000);
    progress.update('render', 1, 2);
    progress.update('render', 2, 2);
    progress.end();
    expect(stream.writes).toEqual([]);
  });

  it('is silent when isTTY is undefined (a pipe)', () => {
    const stream = { write: (s: string) => writes.push(s) };
    const writes: string[] = [];
    const progress = createProgress({ stream, env: {}, now: () => 0, delayMs: 0 });
    progress.update('render', 1, 2);
    progress.end();
    expect(writes).toEqual([]);
  });

  it.each([
    { name: 'CI unset', env: {} },
    { name: 'CI empty', env: { CI: '' } },
    { name: 'CI=false', env: { CI: 'false' } },
    { name: 'CI=0', env: { CI: '0' } },
    { name: 'TERM=xterm-256color', env: { TERM: 'xterm-256color' } },
    { name: 'KYMA_FLEET_NO_PROGRESS empty', env: { KYMA_FLEET_NO_PROGRESS: '' } },
  ])('draws on a TTY when $name', ({ env }) => {
    const { stream, clock, progress } = setup({ env });
    expect(progress).not.toBe(NO_PROGRESS);
    clock.advance(1_000);
    progress.update('render', 1, 4);
    expect(stream.writes).toEqual([`\rrender [#######-----------------------] 1/4 25%${CLEAR}`]);
  });
});

describe('createProgress: timing', () => {
  it('draws nothing before the delay has passed', () => {
    const { stream, clock, progress } = setup();
    progress.update('render', 0, 10);
    clock.advance(999);
    progress.update('render', 5, 10);
    progress.update('write', 10, 10); // phase change and done===total still wait for the delay
    expect(stream.writes).toEqual([]);
    clock.advance(1);
    progress.update('write', 10, 10);
    expect(stream.writes.map(visible)).toEqual(['write [##############################] 10/10 100%']);
  });

  it('keeps a run shorter than the delay completely silent, end() included', () => {
    const { stream, clock, progress } = setup();
    progress.update('render', 0, 3);
    clock.advance(500);
    progress.update('render', 3, 3);
    progress.end();
    expect(stream.writes).toEqual([]);
  });

  it('honours a custom delay', () => {
    const { stream, clock, progress } = setup({ delayMs: 250 });
    clock.advance(249);
    progress.update('render', 0, 3);
    expect(stream.writes).toEqual([]);
    clock.advance(1);
    progress.update('render', 0, 3);
    expect(stream.writes.map(visible)).toEqual(['render [------------------------------] 0/3 0%']);
  });

  it('throttles redraws to intervalMs', () => {
    const { stream, clock, progress } = setup({ delayMs: 0, intervalMs: 100 });
    progress.update('render', 1, 10); // t=0: first draw
    clock.advance(50);
    progress.update('render', 2, 10); // t=50: throttled
    clock.advance(49);
    progress.update('render', 3, 10); // t=99: throttled
    clock.advance(1);
    progress.update('render', 4, 10); // t=100: draws
    clock.advance(10);
    progress.update('render', 5, 10); // t=110: throttled
    expect(stream.writes.map(visible)).toEqual([
      'render [###---------------------------] 1/10 10%',
      'render [############------------------] 4/10 40%',
    ]);
  });

  it('draws a phase change immediately, inside the throttle window', () => {
    const { stream, clock, progress } = setup({ delayMs: 0 });
    progress.update('render', 1, 10);
    clock.advance(10);
    progress.update('write', 1, 10);
    expect(stream.writes.map(visible)).toEqual([
      'render [###---------------------------] 1/10 10%',
      'write [###---------------------------] 1/10 10%',
    ]);
  });

  it('draws done===total immediately, inside the throttle window', () => {
    const { stream, clock, progress } = setup({ delayMs: 0 });
    progress.update('render', 1, 10);
    clock.advance(10);
    progress.update('render', 9, 10);
    clock.advance(10);
    progress.update('render', 10, 10);
    expect(stream.writes.map(visible)).toEqual([
      'render [###---------------------------] 1/10 10%',
      'render [##############################] 10/10 100%',
    ]);
  });

  it('does not rewrite an identical line', () => {
    const { stream, clock, progress } = setup({ delayMs: 0 });
    progress.update('render', 10, 10);
    clock.advance(500);
    progress.update('render', 10, 10);
    expect(stream.writes).toHaveLength(1);
  });

  it('uses no timers: nothing is written without a call', async () => {
    const { stream, clock, progress } = setup({ delayMs: 0 });
    progress.update('render', 1, 10);
    clock.advance(10_000);
    await new Promise((r) => setTimeout(r, 20));
    expect(stream.writes).toHaveLength(1);
  });
});

describe('createProgress: end()', () => {
  it('clears the line when something was drawn, and ignores later updates', () => {
    const { stream, clock, progress } = setup({ delayMs: 0 });
    progress.update('render', 1, 2);
    progress.end();
    clock.advance(1_000);
    progress.update('write', 2, 2);
    progress.end();
    expect(stream.writes).toEqual([`\rrender [###############---------------] 1/2 50%${CLEAR}`, `\r${CLEAR}`]);
  });

  it('writes nothing when nothing was drawn', () => {
    const { stream, progress } = setup();
    progress.update('render', 1, 2); // before the delay
    progress.end();
    expect(stream.writes).toEqual([]);
  });

  it('NO_PROGRESS does nothing', () => {
    expect(() => {
      NO_PROGRESS.update('x', 1, 2);
      NO_PROGRESS.end();
    }).not.toThrow();
  });
});

describe('formatCount', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [999, '999'],
    [1_000, '1,000'],
    [1_234, '1,234'],
    [10_000, '10,000'],
    [100_000, '100,000'],
    [1_000_000, '1,000,000'],
    [1_234_567_890, '1,234,567,890'],
    [-5, '0'],
    [Number.NaN, '0'],
    [12.9, '12'],
  ])('%d → %s', (n, expected) => {
    expect(formatCount(n)).toBe(expected);
  });
});

describe('formatProgressLine', () => {
  it.each([
    { done: 0, total: 10, expected: 'render [------------------------------] 0/10 0%' },
    { done: 999, total: 1_000, expected: 'render [#############################-] 999/1,000 99%' },
    { done: 1_000, total: 1_000, expected: 'render [##############################] 1,000/1,000 100%' },
    { done: 1_234, total: 10_000, expected: 'render [###---------------------------] 1,234/10,000 12%' },
    { done: 50_000, total: 100_000, expected: 'render [###############---------------] 50,000/100,000 50%' },
    { done: 1, total: 3, expected: 'render [##########--------------------] 1/3 33%' },
    { done: 0, total: 0, expected: 'render [##############################] 0/0 100%' },
    { done: 5, total: 0, expected: 'render [##############################] 0/0 100%' },
    { done: 15, total: 10, expected: 'render [##############################] 10/10 100%' },
    { done: -3, total: 10, expected: 'render [------------------------------] 0/10 0%' },
  ])('$done/$total', ({ done, total, expected }) => {
    expect(formatProgressLine('render', done, total, 80)).toBe(expected);
  });

  it('defaults to 80 columns', () => {
    expect(formatProgressLine('render', 1, 2)).toBe(formatProgressLine('render', 1, 2, 80));
  });

  it.each([
    {
      columns: 20,
      phase: 'render',
      expected: 'r… 1,234/10,000 12%', // bar dropped, counts kept, phase squeezed
    },
    {
      columns: 40,
      phase: 'render',
      expected: 'render [#------------] 1,234/10,000 12%',
    },
    {
      columns: 40,
      phase: 'rendering all the runtimes of the fleet',
      expected: 'rendering a… [-------] 1,234/10,000 12%',
    },
    {
      columns: 80,
      phase: 'rendering all the runtimes of the fleet into dist/ right now',
      expected: 'rendering all the runtimes o… [###---------------------------] 1,234/10,000 12%',
    },
  ])('fits $columns columns: $phase', ({ columns, phase, expected }) => {
    const line = formatProgressLine(phase, 1_234, 10_000, columns);
    expect(line).toBe(expected);
    expect(line.length).toBeLessThanOrEqual(columns - 1);
  });

  const phases = [
    '',
    'x',
    'render',
    'write dist',
    'rendering all the runtimes of the fleet',
    'p'.repeat(500),
    'ünïcödé phase ✓ '.repeat(20),
  ];
  const columnsList = [1, 2, 5, 10, 20, 21, 40, 80, 120, 200];
  const counts = [
    [0, 0],
    [0, 10],
    [999, 1_000],
    [1_234, 10_000],
    [99_999, 100_000],
    [123_456_789, 987_654_321],
  ];

  it('never exceeds columns-1 characters', () => {
    for (const columns of columnsList) {
      for (const phase of phases) {
        for (const [done, total] of counts) {
          const line = formatProgressLine(phase, done, total, columns);
          const label = `columns=${columns} phase=${JSON.stringify(phase.slice(0, 20))} ${done}/${total}`;
          expect(Array.from(line).length, label).toBeLessThanOrEqual(columns - 1);
          if (columns >= 40) {
            // Wide enough: counts and percentage are always complete.
            const pct = total === 0 ? 100 : Math.floor((done * 100) / total);
            expect(line.endsWith(`${formatCount(done)}/${formatCount(total)} ${pct}%`), label).toBe(true);
          }
        }
      }
    }
  });

  it('fills 200 columns up to the bar maximum without truncating', () => {
    expect(formatProgressLine('render', 1_234, 10_000, 200)).toBe(
      'render [###---------------------------] 1,234/10,000 12%',
    );
  });

  it('truncates with … on long phases and keeps the line within the drawn stream width', () => {
    const { stream, progress } = setup({ delayMs: 0, columns: 40 });
    progress.update('p'.repeat(100), 1, 2);
    const line = visible(stream.writes[0]);
    expect(line).toBe('ppppppppppp… [########--------] 1/2 50%');
    expect(line.length).toBe(39);
  });

  it('replaces control characters in the phase so the line stays one line', () => {
    expect(formatProgressLine('a\nb\tc', 1, 2, 80)).toBe('a b c [###############---------------] 1/2 50%');
  });

  it('follows stream.columns changes between redraws', () => {
    const { stream, clock, progress } = setup({ delayMs: 0 });
    progress.update('render', 1, 10);
    stream.columns = 30;
    clock.advance(100);
    progress.update('render', 2, 10);
    expect(stream.writes.map(visible)).toEqual([
      'render [###---------------------------] 1/10 10%',
      'render [##---------] 2/10 20%',
    ]);
  });
});
