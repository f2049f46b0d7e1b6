import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Card } from '../../../components/ui/card.js';
import { Logo } from '../../../components/ui/logo.js';

export function AuthLayout({ title, subtitle, children, footer }: { title: string; subtitle?: string; children: ReactNode; footer?: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col items-center justify-center bg-gradient-to-b from-brand-50 to-slate-50 px-4 py-10">
      <Link to="/" className="mb-6 rounded-md" aria-label="Deal Radar home">
        <Logo />
      </Link>
      <main className="w-full max-w-md">
        <Card className="p-6 sm:p-8">
          <h1 className="text-2xl font-bold text-slate-900">{title}</h1>
          {subtitle && <p className="mt-1 text-sm text-slate-700">{subtitle}</p>}
          <div className="mt-6">{children}</div>
        </Card>
        {footer && <div className="mt-6 text-center text-sm text-slate-700">{footer}</div>}
      </main>
    </div>
  );
}
