// The rows of `npm run bench -- --pr-check-at N` (issue 28): the pull-request check measured at one
// large size. Its peak RSS is the criterion at 100,000 (< 1 GB), its time is set against the one
// cold synth of that size, and at other sizes the RSS row informs without being the criterion.

import { describe, expect, it } from 'vitest';
import { type AtScaleResult, atScaleRatios } from '../bench/bench';
import { spread } from '../bench/measure';

function atScale(n: number, coldS: number, checks: Array<[wallS: number, rssMB: number]>): AtScaleResult {
  const runs = checks.map(([w, r]) => ({ wallMs: w * 1000, cpuS: w, maxRssKB: r * 1024 }));
  return { n, cold: { wallMs: coldS * 1000, cpuS: coldS, maxRssKB: 1 }, warmup: runs[0]!, checks: runs, wallMs: spread(runs.map((c) => c.wallMs)), maxRssMB: spread(runs.map((c) => c.maxRssKB / 1024)) };
}

describe('bench --pr-check-at: the measured rows', () => {
  it('at 100,000 the peak RSS row is the criterion: under 1 GB passes, over it fails', () => {
    const under = atScaleRatios(atScale(100000, 150, [[18, 820], [17, 798], [19, 840]]));
    const rss = under.find((r) => r.name.includes('peak RSS'))!;
    expect(rss).toMatchObject({ n: '100000', value: 820, min: 798, max: 840, ok: true, criterion: true });
    const ratio = under.find((r) => r.name.includes('/ cold'))!;
    expect(ratio.value).toBeCloseTo(18 / 150);
    expect(ratio.ok).toBe(true);
    const over = atScaleRatios(atScale(100000, 150, [[40, 1100], [41, 1030], [39, 1200]]));
    expect(over.find((r) => r.name.includes('peak RSS'))).toMatchObject({ value: 1100, ok: false, criterion: true });
    expect(over.find((r) => r.name.includes('/ cold'))!.ok).toBe(false);
  });

  it('at another size the rows inform: none is the criterion', () => {
    expect(atScaleRatios(atScale(1500, 4.5, [[1, 124]])).every((r) => !r.criterion)).toBe(true);
  });
});
