import { cn } from '../../lib/cn.js';

/** A spinner announced to assistive technology as a status with its label. */
export function Spinner({ label = 'Loading...', className, showLabel = false }: { label?: string; className?: string; showLabel?: boolean }) {
  return (
    <div role="status" aria-label={label} className={cn('flex flex-col items-center justify-center gap-3', className)}>
      <span className="h-8 w-8 animate-spin rounded-full border-4 border-brand-100 border-t-brand-600 motion-reduce:animate-none" aria-hidden />
      {showLabel ? <span className="text-sm text-slate-700">{label}</span> : <span className="sr-only">{label}</span>}
    </div>
  );
}

export function FullPageSpinner({ label }: { label?: string }) {
  return <Spinner label={label} className="min-h-[60vh]" />;
}
