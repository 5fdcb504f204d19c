// The charts' x-axis labels the days that hold data, as many as fit without overlapping.
import { describe, expect, it } from 'vitest';
import { labelledDays, volumeChart } from '../src/pages/charts.ts';

const november = Array.from({ length: 30 }, (_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`);

describe('the x-axis of a chart', () => {
  it('labels the days that hold data, never a day without while one with data fits', () => {
    const withData = new Set(['2026-11-03', '2026-11-04', '2026-11-17', '2026-11-29']);
    // 30 days: a label at most every 3 slots; 11-04 is one slot after 11-03 and does not fit.
    expect([...labelledDays(november, withData)].map((i) => november[i])).toEqual([
      '2026-11-03',
      '2026-11-17',
      '2026-11-29',
    ]);
    // With no data, evenly spaced days.
    expect([...labelledDays(november, new Set())]).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24, 27]);
    // A short range labels every day that holds data.
    const week = november.slice(0, 7);
    expect([...labelledDays(week, new Set(['2026-11-02', '2026-11-03']))]).toEqual([1, 2]);
  });

  it('prints those labels in the chart', () => {
    const svg = volumeChart([{ day: '2026-11-17', in: '1500.00', out: '0.00' }], '2026-11-01', '2026-11-30');
    expect(svg.match(/>\d\d-\d\d<\/text>/g)).toEqual(['>11-17</text>']);
  });
});
