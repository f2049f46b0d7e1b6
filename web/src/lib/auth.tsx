/**
 * The session (spec §4): tokens and the cached profile in browser storage; at start, with an
 * access token, the profile is fetched (tokens and cache cleared when that fails); `isLoading`
 * stays true until that check completes. Lives inside the router so a lost session can send
 * the user to /login remembering where they were.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { toast } from 'sonner';
import { AUTH_FAILED_MESSAGE, apiRequest, configureApiClient } from './api-client.js';
import { tokenStorage, type StoredUser } from './token-storage.js';

export type User = StoredUser;

export type AuthResponse = { access_token: string; refresh_token: string; user: User };

export type RegisterInput = {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  confirmPassword: string;
  phone: string;
  city: string;
  address: string;
  termsAccepted: boolean;
};

/** The register call's payload (§7); empty optional fields are left out. */
export function registerPayload(input: RegisterInput): Record<string, string | boolean> {
  const payload: Record<string, string | boolean> = {
    email: input.email.trim(),
    password1: input.password,
    password2: input.confirmPassword,
    first_name: input.firstName.trim(),
    last_name: input.lastName.trim(),
    terms_accepted: input.termsAccepted,
  };
  for (const [key, value] of [
    ['phone', input.phone],
    ['city', input.city],
    ['address', input.address],
  ] as const) {
    if (value.trim() !== '') payload[key] = value.trim();
  }
  return payload;
}

export const authApi = {
  login: (email: string, password: string) =>
    apiRequest<AuthResponse>('/api/auth/login/', { method: 'POST', body: { email: email.trim(), password }, auth: false }),
  register: (input: RegisterInput) =>
    apiRequest<AuthResponse>('/api/auth/register/', { method: 'POST', body: registerPayload(input), auth: false }),
  logout: (refreshToken: string | null) =>
    apiRequest<unknown>('/api/auth/logout/', { method: 'POST', body: { refresh_token: refreshToken ?? '' }, redirectOnAuthFailure: false }),
  profile: (opts: { redirectOnAuthFailure?: boolean } = {}) => apiRequest<User>('/api/auth/profile/', opts),
};

type AuthContextValue = {
  user: User | null;
  isLoading: boolean;
  isAuthenticated: boolean;
  /** True after the user signed out here, while the app leaves the signed-in pages. */
  signedOut: boolean;
  login(email: string, password: string): Promise<User>;
  register(input: RegisterInput): Promise<User>;
  logout(): Promise<void>;
  refreshProfile(): Promise<void>;
};

const AuthContext = createContext<AuthContextValue | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const navigate = useNavigate();
  const location = useLocation();
  const locationRef = useRef(location);
  locationRef.current = location;
  const [user, setUser] = useState<User | null>(() => (tokenStorage.getAccess() ? tokenStorage.getUser() : null));
  const [isLoading, setIsLoading] = useState(() => tokenStorage.getAccess() !== null);
  const [signedOut, setSignedOut] = useState(false);

  useEffect(() => {
    configureApiClient({
      onAuthFailure: () => {
        setUser(null);
        toast.error(AUTH_FAILED_MESSAGE, { description: 'Please sign in again.' });
        const from = locationRef.current;
        navigate('/login', { replace: true, state: { from: { pathname: from.pathname, search: from.search, hash: from.hash } } });
      },
    });
  }, [navigate]);

  useEffect(() => {
    if (!tokenStorage.getAccess()) return;
    let cancelled = false;
    // The protected routes redirect by themselves once loading ends, so no redirect from here.
    authApi
      .profile({ redirectOnAuthFailure: false })
      .then((profile) => {
        if (cancelled) return;
        tokenStorage.setUser(profile);
        setUser(profile);
      })
      .catch((error: unknown) => {
        if (cancelled) return;
        console.error('Profile check failed; signing out', error);
        tokenStorage.clear();
        setUser(null);
      })
      .finally(() => {
        if (!cancelled) setIsLoading(false);
      });
    return () => {
      cancelled = true;
    };
  }, []);

  const startSession = useCallback((response: AuthResponse) => {
    setSignedOut(false);
    tokenStorage.setTokens(response.access_token, response.refresh_token);
    tokenStorage.setUser(response.user);
    setUser(response.user);
    return response.user;
  }, []);

  const value = useMemo<AuthContextValue>(
    () => ({
      user,
      isLoading,
      isAuthenticated: user !== null,
      signedOut,
      login: async (email, password) => startSession(await authApi.login(email, password)),
      register: async (input) => startSession(await authApi.register(input)),
      logout: async () => {
        try {
          if (tokenStorage.getAccess()) await authApi.logout(tokenStorage.getRefresh());
        } catch (error) {
          // A failed logout is only logged: the local session is cleared anyway (spec §8).
          console.error('Logout failed', error);
        }
        toast.success('Successfully logged out');
        tokenStorage.clear();
        // Protected pages show a spinner rather than bouncing to /login while we head home.
        setSignedOut(true);
        setUser(null);
        await navigate('/');
      },
      refreshProfile: async () => {
        const profile = await authApi.profile();
        tokenStorage.setUser(profile);
        setUser(profile);
      },
    }),
    [user, isLoading, signedOut, startSession, navigate],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthContextValue {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error('useAuth must be used inside <AuthProvider>');
  return ctx;
}

/** Initials for the avatar: first letters of first and last name. */
export function userInitials(user: Pick<User, 'first_name' | 'last_name' | 'email'>): string {
  const initials = `${user.first_name?.trim()[0] ?? ''}${user.last_name?.trim()[0] ?? ''}`.toUpperCase();
  return initials || (user.email?.[0]?.toUpperCase() ?? '?');
}

export function fullName(user: Pick<User, 'first_name' | 'last_name'>): string {
  return `${user.first_name ?? ''} ${user.last_name ?? ''}`.trim();
}
