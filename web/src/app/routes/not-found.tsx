import { useEffect } from 'react';
import { Link, useLocation } from 'react-router-dom';
import { Button } from '../../components/ui/button.js';

export default function NotFoundRoute() {
  const location = useLocation();
  useEffect(() => {
    console.error('404: no page at', location.pathname);
  }, [location.pathname]);
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
