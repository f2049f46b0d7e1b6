/** Tokens and the cached profile in browser storage (spec §4, §9). */
import { STORAGE_KEYS } from '../config/constants.js';

export type StoredUser = {
  id: number;
  email: string;
  first_name: string;
  last_name: string;
  date_joined?: string;
  phone?: string;
  city?: string;
  address?: string;
  /** The buyer's US ZIP code ('' when none). */
  zip?: string;
};

function storage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

export const tokenStorage = {
  getAccess(): string | null {
    return storage()?.getItem(STORAGE_KEYS.accessToken) ?? null;
  },
  getRefresh(): string | null {
    return storage()?.getItem(STORAGE_KEYS.refreshToken) ?? null;
  },
  setTokens(access: string, refresh?: string | null): void {
    const s = storage();
    if (!s) return;
    s.setItem(STORAGE_KEYS.accessToken, access);
    if (refresh) s.setItem(STORAGE_KEYS.refreshToken, refresh);
  },
  getUser(): StoredUser | null {
    const raw = storage()?.getItem(STORAGE_KEYS.user);
    if (!raw) return null;
    try {
      const parsed = JSON.parse(raw) as unknown;
      return parsed && typeof parsed === 'object' ? (parsed as StoredUser) : null;
    } catch {
      return null;
    }
  },
  setUser(user: StoredUser): void {
    storage()?.setItem(STORAGE_KEYS.user, JSON.stringify(user));
  },
  clear(): void {
    const s = storage();
    if (!s) return;
    s.removeItem(STORAGE_KEYS.accessToken);
    s.removeItem(STORAGE_KEYS.refreshToken);
    s.removeItem(STORAGE_KEYS.user);
  },
};
