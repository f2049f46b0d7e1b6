import { Bell, BrainCircuit, CheckCircle2, LineChart, SlidersHorizontal } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Button } from '../../../components/ui/button.js';
import { Logo } from '../../../components/ui/logo.js';
import { FullPageSpinner } from '../../../components/ui/spinner.js';
import { TRIAL_DAYS } from '../../../config/constants.js';
import { useAuth } from '../../../lib/auth.js';

const FEATURES = [
  { icon: BrainCircuit, title: 'AI Deal Detection', text: 'Every listing is valued against comparable sales and scored, so underpriced machines stand out.' },
  { icon: Bell, title: 'Real-Time Alerts', text: 'Get an email or SMS the moment equipment matching your criteria comes up.' },
  { icon: LineChart, title: 'Price History Analysis', text: 'See how prices moved and what similar machines actually sold for.' },
  { icon: SlidersHorizontal, title: 'Smart Filtering', text: 'Filter by equipment type, location, condition and price range.' },
] as const;

const FIGURES = [
  { value: '50K+', label: 'Equipment Tracked' },
  { value: '$2.3M+', label: 'Saved by Buyers' },
  { value: '1,200+', label: 'Active Users' },
  { value: '23%', label: 'Average Savings' },
] as const;

const STEPS = [
  { title: 'Set Your Criteria', text: 'Tell us the equipment type, location, condition and price range you are after.' },
  { title: 'We Monitor & Analyze', text: 'Deal Radar watches auction sites around the clock and values every listing.' },
  { title: 'Get Instant Alerts', text: 'When a deal matches, you hear about it first — by email or SMS.' },
] as const;

const PLACEHOLDER_LINKS = ['Help Center', 'Contact Us', 'Privacy Policy', 'Terms of Service'] as const;

export function LandingPage() {
  const { user, isLoading, logout } = useAuth();
  const [signingOut, setSigningOut] = useState(false);

  if (isLoading) return <FullPageSpinner />;

  return (
    <div className="min-h-screen bg-white">
      <header className="border-b border-slate-200">
        <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-4 px-4 sm:px-6 lg:px-8">
          <Link to="/" className="rounded-md" aria-label="Deal Radar home">
            <Logo />
          </Link>
          <nav aria-label="Account" className="flex items-center gap-2">
            {user ? (
              <>
                <span className="hidden text-sm text-slate-700 sm:inline">Welcome, {user.first_name?.trim() || 'User'}</span>
                <Button asChild variant="ghost">
                  <Link to="/dashboard">Dashboard</Link>
                </Button>
                <Button
                  variant="secondary"
                  disabled={signingOut}
                  onClick={() => {
                    setSigningOut(true);
                    void logout().finally(() => setSigningOut(false));
                  }}
                >
                  {signingOut ? 'Signing Out...' : 'Sign Out'}
                </Button>
              </>
            ) : (
              <>
                <Button asChild variant="ghost">
                  <Link to="/login">Sign In</Link>
                </Button>
                <Button asChild>
                  <Link to="/signup">Get Started</Link>
                </Button>
              </>
            )}
          </nav>
        </div>
      </header>

      <main>
        <section className="bg-gradient-to-b from-brand-50 to-white">
          <div className="mx-auto max-w-5xl px-4 py-20 text-center sm:px-6 sm:py-28">
            <h1 className="text-4xl font-extrabold tracking-tight text-slate-900 sm:text-5xl">
              Find Underpriced Heavy Equipment <span className="text-brand-600">Before Anyone Else</span>
            </h1>
            <p className="mx-auto mt-6 max-w-2xl text-lg text-slate-700">
              Deal Radar monitors equipment auctions and marketplaces, scores every listing against real comparable sales, and alerts you
              the moment a great deal appears.
            </p>
            <div className="mt-10 flex flex-col justify-center gap-3 sm:flex-row">
              {user ? (
                <>
                  <Button asChild size="lg">
                    <Link to="/dashboard">Go to Dashboard</Link>
                  </Button>
                  <Button asChild size="lg" variant="secondary">
                    <Link to="/alerts">Manage Alerts</Link>
                  </Button>
                </>
              ) : (
                <>
                  <Button asChild size="lg">
                    <Link to="/signup">Start Finding Deals</Link>
                  </Button>
                  <Button asChild size="lg" variant="secondary">
                    <Link to="/dashboard">View Demo Dashboard</Link>
                  </Button>
                </>
              )}
            </div>
            {!user && (
              <p className="mt-4 text-sm text-slate-700">
                {TRIAL_DAYS}-day free trial · No credit card required · Cancel anytime
              </p>
            )}
          </div>
        </section>

        <section aria-labelledby="features-heading" className="mx-auto max-w-7xl px-4 py-20 sm:px-6 lg:px-8">
          <h2 id="features-heading" className="text-center text-3xl font-bold text-slate-900">
            Everything You Need to Buy Smarter
          </h2>
          <ul className="mt-12 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
            {FEATURES.map(({ icon: Icon, title, text }) => (
              <li key={title} className="rounded-lg border border-slate-200 p-6">
                <Icon className="h-8 w-8 text-brand-600" aria-hidden />
                <h3 className="mt-4 text-lg font-semibold">{title}</h3>
                <p className="mt-2 text-sm text-slate-700">{text}</p>
              </li>
            ))}
          </ul>
        </section>

        <section aria-label="Deal Radar in figures" className="bg-brand-800 text-white">
          <dl className="mx-auto grid max-w-7xl grid-cols-2 gap-8 px-4 py-16 text-center sm:px-6 lg:grid-cols-4 lg:px-8">
            {FIGURES.map((f) => (
              <div key={f.label} className="flex flex-col-reverse">
                <dt className="mt-1 text-brand-100">{f.label}</dt>
                <dd className="text-4xl font-extrabold">{f.value}</dd>
              </div>
            ))}
          </dl>
        </section>

        <section aria-labelledby="steps-heading" className="mx-auto max-w-7xl px-4 py-20 sm:px-6 lg:px-8">
          <h2 id="steps-heading" className="text-center text-3xl font-bold text-slate-900">
            How It Works
          </h2>
          <ol className="mt-12 grid gap-8 md:grid-cols-3">
            {STEPS.map((step, i) => (
              <li key={step.title} className="text-center">
                <span className="mx-auto flex h-12 w-12 items-center justify-center rounded-full bg-brand-600 text-xl font-bold text-white" aria-hidden>
                  {i + 1}
                </span>
                <h3 className="mt-4 text-lg font-semibold">
                  <span className="sr-only">Step {i + 1}: </span>
                  {step.title}
                </h3>
                <p className="mt-2 text-sm text-slate-700">{step.text}</p>
              </li>
            ))}
          </ol>
        </section>

        {!user && (
          <section className="bg-slate-50">
            <div className="mx-auto max-w-3xl px-4 py-20 text-center sm:px-6">
              <h2 className="text-3xl font-bold text-slate-900">Ready to Find Your Next Deal?</h2>
              <p className="mt-4 text-slate-700">
                Start your {TRIAL_DAYS}-day free trial today. No credit card required. Cancel anytime.
              </p>
              <Button asChild size="lg" className="mt-8">
                <Link to="/signup">
                  <CheckCircle2 className="h-5 w-5" aria-hidden />
                  Start Free Trial
                </Link>
              </Button>
            </div>
          </section>
        )}
      </main>

      <footer className="border-t border-slate-200 bg-white">
        <div className="mx-auto grid max-w-7xl gap-8 px-4 py-12 sm:grid-cols-3 sm:px-6 lg:px-8">
          <div>
            <Logo />
            <p className="mt-3 text-sm text-slate-700">Smarter buying of used heavy equipment.</p>
          </div>
          <nav aria-labelledby="footer-product">
            <h2 id="footer-product" className="text-sm font-semibold text-slate-900">
              Product
            </h2>
            <ul className="mt-3 space-y-2 text-sm">
              <li>
                <Link to="/dashboard" className="text-slate-700 hover:text-slate-900">
                  Dashboard
                </Link>
              </li>
              <li>
                <Link to="/alerts" className="text-slate-700 hover:text-slate-900">
                  Alerts
                </Link>
              </li>
              <li>
                <Link to="/account" className="text-slate-700 hover:text-slate-900">
                  Account
                </Link>
              </li>
            </ul>
          </nav>
          <div>
            <h2 className="text-sm font-semibold text-slate-900">Support</h2>
            {/* Placeholders in the spec: no pages behind them yet, so they are not links. */}
            <ul className="mt-3 space-y-2 text-sm text-slate-700">
              {PLACEHOLDER_LINKS.map((label) => (
                <li key={label}>{label}</li>
              ))}
            </ul>
          </div>
        </div>
        <p className="border-t border-slate-200 py-6 text-center text-xs text-slate-700">© 2026 Deal Radar. All rights reserved.</p>
      </footer>
    </div>
  );
}
