import { Suspense, useEffect, useRef } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import { FullPageSpinner } from '../ui/spinner.js';
import { TopNav } from './top-nav.js';

/** After a client-side navigation, move focus to the new page so screen readers start there. */
function useFocusMainOnNavigate() {
  const { pathname } = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [pathname]);
}

export function AppLayout() {
  useFocusMainOnNavigate();
  return (
    <div className="min-h-screen">
      <a href="#main" className="sr-only z-50 rounded-md bg-white p-2 focus:not-sr-only focus:absolute focus:top-2 focus:left-2">
        Skip to content
      </a>
      <TopNav />
      <main id="main" tabIndex={-1} className="outline-none mx-auto max-w-7xl px-4 py-6 sm:px-6 lg:px-8 lg:py-8">
        <Suspense fallback={<FullPageSpinner />}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}
