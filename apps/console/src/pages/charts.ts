// Inline SVG charts (no library, no CDN: the console works offline), with axes, ticks, a slot for
// every day of the range, labels on the days that hold data (as many as fit) and a legend.
// Amounts arrive as decimal strings; the float is only a bar's height and a tick's place on
// screen, never a figure anyone adds up.
import { esc } from './html.ts';
import { money, percent } from './format.ts';

export interface VolumePoint {
  day: string;
  /** Decimal strings. */
  in: string;
  out: string;
}

const W = 720;
const H = 240;
const LEFT = 84;
const RIGHT = 12;
const TOP = 24;
const BOTTOM = 40;
const PLOT_W = W - LEFT - RIGHT;
const PLOT_H = H - TOP - BOTTOM;
/** Past this many days the chart shows only the days that have data (a bar per day would be a hair). */
const MAX_DAYS = 92;

/** Every day from `from` to `to` (YYYY-MM-DD), or just `withData` when the range is longer than MAX_DAYS. */
export function daysOf(from: string, to: string, withData: readonly string[]): string[] {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  if ((end - start) / 86_400_000 + 1 > MAX_DAYS) return [...new Set(withData)].sort();
  const days: string[] = [];
  for (let t = start; t <= end; t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** A round number at or above `max` (1, 2, 2.5 or 5 × a power of ten). */
function niceCeiling(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return ([1, 2, 2.5, 5, 10].find((m) => m * power >= max) ?? 10) * power;
}

/** Day labels at most this many slots' worth apart, so they never overlap (about 12 over the axis). */
const MAX_LABELS = 12;
const dayLabel = (day: string) => day.slice(5);

/**
 * The days whose label the x-axis prints: those that hold data, first to last, each far enough
 * from the one before not to overlap it (a day without data is never labelled while one with data
 * is left out); with no data at all, evenly spaced days.
 */
export function labelledDays(days: readonly string[], withData: ReadonlySet<string>): Set<number> {
  const gap = Math.max(1, Math.ceil(days.length / MAX_LABELS));
  const candidates = days.flatMap((d, i) => (withData.has(d) ? [i] : []));
  const chosen = new Set<number>();
  let last = -Infinity;
  for (const i of candidates.length > 0 ? candidates : days.map((_, i) => i))
    if (i - last >= gap) {
      chosen.add(i);
      last = i;
    }
  return chosen;
}

function frame(
  kind: string,
  label: string,
  ticks: Array<{ value: number; text: string }>,
  days: string[],
  withData: ReadonlySet<string>,
  slot: number,
  body: string,
  legend: string,
): string {
  const y = (v: number) => TOP + PLOT_H * (1 - v);
  const grid = ticks
    .map(
      (t) =>
        `<line class="grid" x1="${LEFT}" x2="${W - RIGHT}" y1="${y(t.value)}" y2="${y(t.value)}"/><text x="${LEFT - 6}" y="${y(t.value) + 4}" text-anchor="end">${esc(t.text)}</text>`,
    )
    .join('');
  const labelled = labelledDays(days, withData);
  const xLabels = days
    .map((d, i) =>
      labelled.has(i)
        ? `<text x="${LEFT + slot * i + slot / 2}" y="${H - BOTTOM + 16}" text-anchor="middle">${esc(dayLabel(d))}</text>`
        : '',
    )
    .join('');
  return `<svg role="img" aria-label="${esc(label)}" viewBox="0 0 ${W} ${H}" data-chart="${kind}">
${grid}<line class="axis" x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${TOP + PLOT_H}"/><line class="axis" x1="${LEFT}" x2="${W - RIGHT}" y1="${TOP + PLOT_H}" y2="${TOP + PLOT_H}"/>
${xLabels}<text x="${LEFT + PLOT_W / 2}" y="${H - 6}" text-anchor="middle">day (Mexico City), ${esc(days[0] ?? '')} to ${esc(days.at(-1) ?? '')}</text>
${legend}${body}</svg>`;
}

/** Settled money in and out per day, side by side, over every day of the range. */
export function volumeChart(points: VolumePoint[], from: string, to: string): string {
  const days = daysOf(
    from,
    to,
    points.map((p) => p.day),
  );
  if (days.length === 0 || points.length === 0) return '<p class="empty"><em>No volume in this range.</em></p>';
  const byDay = new Map(points.map((p) => [p.day, p]));
  const top = niceCeiling(Math.max(0, ...points.flatMap((p) => [Number(p.in), Number(p.out)])));
  const slot = PLOT_W / days.length;
  const bar = Math.max(1, slot / 2 - 1);
  const height = (amount: string) => (PLOT_H * Number(amount)) / top;
  const bars = days
    .map((day, i) => {
      const p = byDay.get(day);
      if (!p) return '';
      const x = LEFT + slot * i;
      const hIn = height(p.in);
      const hOut = height(p.out);
      return `<rect x="${x + 1}" y="${TOP + PLOT_H - hIn}" width="${bar}" height="${hIn}" fill="#1a7f37"><title>${esc(day)} in ${esc(money(p.in))}</title></rect><rect x="${x + 1 + bar}" y="${TOP + PLOT_H - hOut}" width="${bar}" height="${hOut}" fill="#0969da"><title>${esc(day)} out ${esc(money(p.out))}</title></rect>`;
    })
    .join('');
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => ({
    value: f,
    text: money((top * f).toFixed(0)).replace(/\.00$/, ''),
  }));
  const legend = `<rect x="${LEFT}" y="6" width="10" height="10" fill="#1a7f37"/><text x="${LEFT + 14}" y="15">money in (settled)</text><rect x="${LEFT + 140}" y="6" width="10" height="10" fill="#0969da"/><text x="${LEFT + 154}" y="15">money out (settled)</text>`;
  return frame('volume', 'Settled money in and out by day', ticks, days, new Set(byDay.keys()), slot, bars, legend);
}

/** The match rate per day (a point per day with items, joined), over every day of the range. */
export function matchRateChart(points: Array<{ day: string; rate: number | null }>, from: string, to: string): string {
  const known = points.filter((p): p is { day: string; rate: number } => p.rate !== null);
  if (known.length === 0) return '<p class="empty"><em>No items in this range.</em></p>';
  const days = daysOf(
    from,
    to,
    known.map((p) => p.day),
  );
  const index = new Map(days.map((d, i) => [d, i]));
  const slot = PLOT_W / days.length;
  const x = (day: string) => LEFT + slot * (index.get(day) ?? 0) + slot / 2;
  const y = (rate: number) => TOP + PLOT_H * (1 - rate);
  const line =
    known.length > 1
      ? `<polyline fill="none" stroke="#0969da" stroke-width="2" points="${known.map((p) => `${x(p.day)},${y(p.rate)}`).join(' ')}"/>`
      : '';
  const dots = known
    .map(
      (p) =>
        `<circle cx="${x(p.day)}" cy="${y(p.rate)}" r="3.5" fill="#0969da"><title>${esc(p.day)} ${esc(percent(p.rate))}</title></circle>`,
    )
    .join('');
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => ({ value: f, text: `${f * 100}%` }));
  const legend = `<text x="${LEFT}" y="15">share of items matched or refunded, per day</text>`;
  const withData = new Set(known.map((p) => p.day));
  return frame('match-rate', 'Match rate by day', ticks, days, withData, slot, line + dots, legend);
}
