/** Where to go after signing in: the remembered in-app page, never another site. */
export type RememberedLocation = { pathname?: unknown; search?: unknown; hash?: unknown } | null | undefined;

export function redirectTarget(from: RememberedLocation, fallback = '/dashboard'): string {
  if (!from || typeof from.pathname !== 'string') return fallback;
  const { pathname } = from;
  if (!pathname.startsWith('/') || pathname.startsWith('//') || pathname.startsWith('/\\')) return fallback;
  if (pathname === '/login' || pathname === '/signup') return fallback;
  const search = typeof from.search === 'string' && from.search.startsWith('?') ? from.search : '';
  const hash = typeof from.hash === 'string' && from.hash.startsWith('#') ? from.hash : '';
  return `${pathname}${search}${hash}`;
}
