import { lazy, Suspense } from 'react';
import { createBrowserRouter, Outlet, type RouteObject } from 'react-router-dom';
import { FullPageSpinner } from '../components/ui/spinner.js';
import { Toaster } from '../components/ui/toaster.js';
import { AuthProvider } from '../lib/auth.js';
import { ThemeProvider } from '../lib/theme.js';
import { AnalyticsTracker } from '../features/analytics/analytics-tracker.js';
import { ProtectedRoute } from './protected-route.js';

// Each screen is its own chunk: the landing page's first load carries only the shell.
const Landing = lazy(() => import('./routes/landing.js'));
const Login = lazy(() => import('./routes/login.js'));
const Signup = lazy(() => import('./routes/signup.js'));
const ForgotPassword = lazy(() => import('./routes/forgot-password.js'));
const ResetPassword = lazy(() => import('./routes/reset-password.js'));
const Dashboard = lazy(() => import('./routes/dashboard.js'));
const Deal = lazy(() => import('./routes/deal.js'));
const Alerts = lazy(() => import('./routes/alerts.js'));
const Watchlist = lazy(() => import('./routes/watchlist.js'));
const Value = lazy(() => import('./routes/value.js'));
const Account = lazy(() => import('./routes/account.js'));
const NotFound = lazy(() => import('./routes/not-found.js'));
// The signed-in shell (top navigation, avatar menu) is only loaded by signed-in screens.
const AppLayout = lazy(() => import('../components/layouts/app-layout.js').then((m) => ({ default: m.AppLayout })));

/** The session and toasts live inside the router so a lost session can navigate to /login. */
function Root() {
  return (
    <ThemeProvider>
      <AuthProvider>
        <AnalyticsTracker />
        <Toaster />
        <Suspense fallback={<FullPageSpinner />}>
          <Outlet />
        </Suspense>
      </AuthProvider>
    </ThemeProvider>
  );
}

export const routes: RouteObject[] = [
  {
    element: <Root />,
    children: [
      { path: '/', element: <Landing /> },
      { path: '/login', element: <Login /> },
      { path: '/signup', element: <Signup /> },
      { path: '/forgot-password', element: <ForgotPassword /> },
      { path: '/reset', element: <ResetPassword /> },
      { path: '/reset/:uid', element: <ResetPassword /> },
      { path: '/reset/:uid/:token', element: <ResetPassword /> },
      {
        element: (
          <ProtectedRoute>
            <AppLayout />
          </ProtectedRoute>
        ),
        children: [
          { path: '/dashboard', element: <Dashboard /> },
          { path: '/deal/:id', element: <Deal /> },
          { path: '/alerts', element: <Alerts /> },
          { path: '/watchlist', element: <Watchlist /> },
          { path: '/value', element: <Value /> },
          { path: '/account', element: <Account /> },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
