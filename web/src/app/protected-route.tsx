import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { FullPageSpinner } from '../components/ui/spinner.js';
import { useAuth } from '../lib/auth.js';

/** Signed-in only: a spinner while the session loads, else /login remembering where the user was. */
export function ProtectedRoute({ children }: { children: ReactNode }) {
  const { user, isLoading, signedOut } = useAuth();
  const location = useLocation();
  if (isLoading || (!user && signedOut)) return <FullPageSpinner label="Loading your session..." />;
  if (!user) {
    const from = { pathname: location.pathname, search: location.search, hash: location.hash };
    return <Navigate to="/login" replace state={{ from }} />;
  }
  return <>{children}</>;
}
