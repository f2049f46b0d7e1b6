import { passwordStrength } from '../lib/password-strength.js';
import { cn } from '../lib/cn.js';

const colors = ['bg-red-600', 'bg-red-600', 'bg-red-600', 'bg-amber-500', 'bg-brand-600', 'bg-green-600'];

export function PasswordStrengthMeter({ password }: { password: string }) {
  if (!password) return null;
  const { score, label } = passwordStrength(password);
  return (
    <div className="flex items-center gap-2" aria-live="polite">
      <div className="flex flex-1 gap-1" aria-hidden>
        {[1, 2, 3, 4, 5].map((i) => (
          <span key={i} className={cn('h-1.5 flex-1 rounded-full', i <= score ? colors[score] : 'bg-slate-200')} />
        ))}
      </div>
      <span className="text-xs font-medium text-slate-800">Password strength: {label}</span>
    </div>
  );
}
