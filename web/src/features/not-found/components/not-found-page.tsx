import { useEffect } from 'react';
import { Link, useLocation } from 'react-router-dom';
import { Button } from '../../../components/ui/button.js';
import { trackError } from '../../../lib/analytics.js';

/** Spec §2: any other path shows this page and the missing path is logged (console and analytics). */
export function NotFoundPage() {
  const location = useLocation();
  useEffect(() => {
    console.error('404 Error: User attempted to access non-existent route:', location.pathname);
    trackError('Page Not Found', { path: location.pathname, search: location.search, hash: location.hash, referrer: document.referrer });
  }, [location.pathname, location.search, location.hash]);
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-4 bg-slate-50 px-4 text-center">
      <title>Page not found — Deal Radar</title>
      <h1 className="text-5xl font-extrabold text-slate-900">404</h1>
      <p className="text-xl text-slate-700">Oops! Page not found</p>
      <Button asChild>
        <Link to="/">Return to Home</Link>
      </Button>
    </main>
  );
}
