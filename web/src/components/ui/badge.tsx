import type { HTMLAttributes } from 'react';
import { cn } from '../../lib/cn.js';

const tones = {
  neutral: 'bg-slate-100 text-slate-800 border-slate-200',
  outline: 'bg-white text-slate-800 border-slate-300',
  info: 'bg-brand-50 text-brand-800 border-brand-100',
  success: 'bg-green-100 text-green-900 border-green-200',
  warning: 'bg-amber-100 text-amber-900 border-amber-300',
  danger: 'bg-red-100 text-red-900 border-red-200',
  muted: 'bg-slate-200 text-slate-800 border-slate-300',
} as const;

export type BadgeTone = keyof typeof tones;

export function Badge({ className, tone = 'neutral', ...props }: HTMLAttributes<HTMLSpanElement> & { tone?: BadgeTone }) {
  return (
    <span
      className={cn('inline-flex items-center gap-1 rounded-full border px-2.5 py-0.5 text-xs font-semibold whitespace-nowrap', tones[tone], className)}
      {...props}
    />
  );
}
