// Inline SVG charts (no library, no CDN: the console works offline). Amounts are drawn from
// decimal strings; the float is only a bar's height on screen, never a figure anyone reads.
import { esc } from './html.ts';

export interface VolumePoint {
  day: string;
  /** Decimal strings. */
  in: string;
  out: string;
}

const W = 640;
const H = 180;
const PAD = 30;

export function volumeChart(points: VolumePoint[]): string {
  if (points.length === 0) return '<p><em>No volume in this range.</em></p>';
  const max = Math.max(1, ...points.flatMap((p) => [Number(p.in), Number(p.out)]));
  const slot = (W - PAD * 2) / points.length;
  const bar = Math.max(2, slot / 2 - 2);
  const bars = points
    .map((p, i) => {
      const x = PAD + i * slot;
      const hIn = ((H - PAD * 2) * Number(p.in)) / max;
      const hOut = ((H - PAD * 2) * Number(p.out)) / max;
      return `<rect x="${x}" y="${H - PAD - hIn}" width="${bar}" height="${hIn}" fill="#1a7f37"><title>${esc(p.day)} in ${esc(p.in)}</title></rect>
<rect x="${x + bar + 1}" y="${H - PAD - hOut}" width="${bar}" height="${hOut}" fill="#0969da"><title>${esc(p.day)} out ${esc(p.out)}</title></rect>
<text x="${x}" y="${H - PAD + 12}">${esc(p.day.slice(5))}</text>`;
    })
    .join('');
  return `<svg role="img" aria-label="Volume in and out by day" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" data-chart="volume">
<line x1="${PAD}" y1="${H - PAD}" x2="${W - PAD}" y2="${H - PAD}" stroke="#d0d7de"/>${bars}
<text x="${PAD}" y="12">max ${esc(max.toFixed(2))} MXN · green in, blue out</text></svg>`;
}

export function matchRateChart(points: Array<{ day: string; rate: number | null }>): string {
  const known = points.filter((p): p is { day: string; rate: number } => p.rate !== null);
  if (known.length === 0) return '<p><em>No items in this range.</em></p>';
  const step = known.length === 1 ? 0 : (W - PAD * 2) / (known.length - 1);
  const y = (rate: number) => H - PAD - (H - PAD * 2) * rate;
  const coords = known.map((p, i) => `${PAD + i * step},${y(p.rate)}`);
  return `<svg role="img" aria-label="Match rate by day" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" data-chart="match-rate">
<line x1="${PAD}" y1="${y(0)}" x2="${W - PAD}" y2="${y(0)}" stroke="#d0d7de"/><line x1="${PAD}" y1="${y(1)}" x2="${W - PAD}" y2="${y(1)}" stroke="#d0d7de" stroke-dasharray="3"/>
<text x="2" y="${y(1) + 3}">100%</text><text x="2" y="${y(0) + 3}">0%</text>
<polyline fill="none" stroke="#0969da" stroke-width="2" points="${coords.join(' ')}"/>
${known.map((p, i) => `<circle cx="${PAD + i * step}" cy="${y(p.rate)}" r="3" fill="#0969da"><title>${esc(p.day)} ${(p.rate * 100).toFixed(1)}%</title></circle><text x="${PAD + i * step - 10}" y="${H - PAD + 12}">${esc(p.day.slice(5))}</text>`).join('')}
</svg>`;
}
