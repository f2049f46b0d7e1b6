import { formatMoney } from '../../../lib/format-price.js';
import type { PricePoint } from '../../../lib/listing-types.js';

const WIDTH = 600;
const HEIGHT = 220;
const PAD = { top: 16, right: 16, bottom: 32, left: 72 };

const dateFmt = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric' });

export type ChartPoint = { x: number; y: number; date: Date; price: number };

/** Points sorted by time and scaled into the chart's box; unreadable entries are dropped. */
export function chartPoints(history: PricePoint[]): { points: ChartPoint[]; min: number; max: number } {
  const clean = history
    .filter((p): p is { observed_at: string; price: number } => typeof p.price === 'number' && Number.isFinite(p.price))
    .map((p) => ({ date: new Date(p.observed_at), price: p.price }))
    .filter((p) => !Number.isNaN(p.date.getTime()))
    .sort((a, b) => a.date.getTime() - b.date.getTime());
  if (clean.length === 0) return { points: [], min: 0, max: 0 };
  const prices = clean.map((p) => p.price);
  const min = Math.min(...prices);
  const max = Math.max(...prices);
  const t0 = clean[0]!.date.getTime();
  const t1 = clean[clean.length - 1]!.date.getTime();
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  // A flat series sits in the middle rather than on an edge.
  const span = max - min || Math.max(1, max * 0.1);
  const lo = max === min ? min - span / 2 : min;
  const points = clean.map((p) => ({
    ...p,
    x: PAD.left + (t1 === t0 ? innerW / 2 : ((p.date.getTime() - t0) / (t1 - t0)) * innerW),
    y: PAD.top + innerH - ((p.price - lo) / span) * innerH,
  }));
  return { points, min, max };
}

/** A small SVG line chart of the listing's observed prices. */
export function PriceHistoryChart({ history, currency }: { history: PricePoint[]; currency?: string | null }) {
  const { points, min, max } = chartPoints(history);
  if (points.length === 0) return <p className="text-sm text-slate-700">No price changes recorded yet.</p>;
  const first = points[0]!;
  const last = points[points.length - 1]!;
  const summary = `Price history: ${points.length} observation${points.length === 1 ? '' : 's'}, from ${formatMoney(first.price, currency)} on ${dateFmt.format(first.date)} to ${formatMoney(last.price, currency)} on ${dateFmt.format(last.date)}.`;
  const path = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
  const yLabels = max === min ? [max] : [max, min];
  return (
    <figure>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} className="h-auto w-full" role="img" aria-label={summary}>
        <line x1={PAD.left} x2={WIDTH - PAD.right} y1={HEIGHT - PAD.bottom} y2={HEIGHT - PAD.bottom} stroke="#cbd5e1" />
        <line x1={PAD.left} x2={PAD.left} y1={PAD.top} y2={HEIGHT - PAD.bottom} stroke="#cbd5e1" />
        {yLabels.map((value) => {
          const y = points.find((p) => p.price === value)!.y;
          return (
            <g key={value}>
              <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y} y2={y} stroke="#e2e8f0" strokeDasharray="4 4" />
              <text x={PAD.left - 8} y={y + 4} textAnchor="end" fontSize="12" fill="#334155">
                {formatMoney(value, currency)}
              </text>
            </g>
          );
        })}
        <text x={first.x} y={HEIGHT - 10} textAnchor={points.length === 1 ? 'middle' : 'start'} fontSize="12" fill="#334155">
          {dateFmt.format(first.date)}
        </text>
        {points.length > 1 && (
          <text x={last.x} y={HEIGHT - 10} textAnchor="end" fontSize="12" fill="#334155">
            {dateFmt.format(last.date)}
          </text>
        )}
        <path d={path} fill="none" stroke="#1d4ed8" strokeWidth="2.5" strokeLinejoin="round" />
        {points.map((p) => (
          <circle key={`${p.date.getTime()}-${p.price}`} cx={p.x} cy={p.y} r="4" fill="#1d4ed8">
            <title>{`${dateFmt.format(p.date)}: ${formatMoney(p.price, currency)}`}</title>
          </circle>
        ))}
      </svg>
      <figcaption className="sr-only">{summary}</figcaption>
    </figure>
  );
}
