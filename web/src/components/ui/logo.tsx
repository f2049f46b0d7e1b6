import { Radar } from 'lucide-react';
import { cn } from '../../lib/cn.js';

export function Logo({ className }: { className?: string }) {
  return (
    <span className={cn('inline-flex items-center gap-2 text-lg font-bold text-slate-900', className)}>
      <Radar className="h-6 w-6 text-brand-600" aria-hidden />
      Deal Radar
    </span>
  );
}
