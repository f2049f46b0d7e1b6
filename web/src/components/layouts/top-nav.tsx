import * as Avatar from '@radix-ui/react-avatar';
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { CreditCard, LogOut, Menu, User as UserIcon, X } from 'lucide-react';
import { useState } from 'react';
import { Link, NavLink } from 'react-router-dom';
import { BILLING_PATH } from '../../config/constants.js';
import { fullName, useAuth, userInitials } from '../../lib/auth.js';
import { cn } from '../../lib/cn.js';
import { Logo } from '../ui/logo.js';
import { ThemeSwitch } from '../theme-switch.js';

const NAV_ITEMS = [
  { to: '/dashboard', label: 'Dashboard' },
  { to: '/alerts', label: 'Alerts' },
  { to: '/watchlist', label: 'Watchlist' },
  // five items: the full bar from lg (1024 px); below it, the menu
  { to: '/value', label: 'What is it worth' },
  { to: '/account', label: 'Account' },
] as const;

const navLinkClass = ({ isActive }: { isActive: boolean }) =>
  cn('rounded-md px-3 py-2 text-sm font-medium', isActive ? 'bg-brand-50 text-brand-800' : 'text-slate-700 hover:bg-slate-100 hover:text-slate-900');

const menuItemClass = 'flex cursor-pointer items-center gap-2 rounded-md px-2 py-2 text-sm text-slate-800 outline-none data-[highlighted]:bg-slate-100';

function AvatarMenu({ signingOut, onLogout }: { signingOut: boolean; onLogout: () => void }) {
  const { user, isLoading } = useAuth();
  if (!user || isLoading) {
    return <span className="h-9 w-9 animate-pulse rounded-full bg-slate-200" aria-label="Loading your account" role="img" />;
  }
  const name = fullName(user) || user.email;
  const initials = userInitials(user);
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <button type="button" className="rounded-full" aria-label={`${initials}, Account menu for ${name}`}>
          <Avatar.Root className="flex h-9 w-9 items-center justify-center rounded-full bg-brand-600 text-sm font-semibold text-white">
            <Avatar.Fallback>{initials}</Avatar.Fallback>
          </Avatar.Root>
        </button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content align="end" sideOffset={8} className="z-50 min-w-56 rounded-lg border border-slate-200 bg-white p-1 shadow-lg">
          <DropdownMenu.Label className="px-2 py-2">
            <p className="text-sm font-semibold text-slate-900">{name}</p>
            <p className="text-xs text-slate-700">{user.email}</p>
          </DropdownMenu.Label>
          <DropdownMenu.Separator className="my-1 h-px bg-slate-200" />
          <DropdownMenu.Item asChild className={menuItemClass}>
            <Link to="/account">
              <UserIcon className="h-4 w-4" aria-hidden />
              Profile
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={menuItemClass}>
            <Link to={BILLING_PATH}>
              <CreditCard className="h-4 w-4" aria-hidden />
              Billing
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Separator className="my-1 h-px bg-slate-200" />
          <DropdownMenu.Item
            className={menuItemClass}
            disabled={signingOut}
            onSelect={(e) => {
              e.preventDefault();
              onLogout();
            }}
          >
            <LogOut className="h-4 w-4" aria-hidden />
            {signingOut ? 'Signing Out...' : 'Logout'}
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

export function TopNav() {
  const { logout } = useAuth();
  const [open, setOpen] = useState(false);
  const [signingOut, setSigningOut] = useState(false);

  async function onLogout() {
    setSigningOut(true);
    await logout();
  }

  return (
    <header className="sticky top-0 z-40 border-b border-slate-200 bg-white/95 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-4 px-4 sm:px-6 lg:px-8">
        <Link to="/dashboard" className="rounded-md" aria-label="Deal Radar — go to the dashboard">
          <Logo />
        </Link>
        <nav aria-label="Main" className="hidden lg:block">
          <ul className="flex items-center gap-1">
            {NAV_ITEMS.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} className={navLinkClass}>
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="flex items-center gap-2">
          <ThemeSwitch />
          <AvatarMenu signingOut={signingOut} onLogout={() => void onLogout()} />
          <button
            type="button"
            className="inline-flex h-10 w-10 items-center justify-center rounded-md text-slate-700 hover:bg-slate-100 lg:hidden"
            aria-expanded={open}
            aria-controls="mobile-menu"
            aria-label={open ? 'Close menu' : 'Open menu'}
            onClick={() => setOpen((o) => !o)}
          >
            {open ? <X className="h-5 w-5" aria-hidden /> : <Menu className="h-5 w-5" aria-hidden />}
          </button>
        </div>
      </div>
      {open && (
        <nav id="mobile-menu" aria-label="Main" className="border-t border-slate-200 px-4 py-2 lg:hidden">
          <ul className="flex flex-col gap-1">
            {NAV_ITEMS.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} className={(s) => cn(navLinkClass(s), 'block')} onClick={() => setOpen(false)}>
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
      )}
    </header>
  );
}
