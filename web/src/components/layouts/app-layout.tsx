import { Suspense } from 'react';
import { Outlet } from 'react-router-dom';
import { FullPageSpinner } from '../ui/spinner.js';
import { TopNav } from './top-nav.js';

export function AppLayout() {
  return (
    <div className="min-h-screen">
      <a href="#main" className="sr-only z-50 rounded-md bg-white p-2 focus:not-sr-only focus:absolute focus:top-2 focus:left-2">
        Skip to content
      </a>
      <TopNav />
      <main id="main" className="mx-auto max-w-7xl px-4 py-6 sm:px-6 lg:px-8 lg:py-8">
        <Suspense fallback={<FullPageSpinner />}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}
