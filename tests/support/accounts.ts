/** Helpers for tests that need signed-in users: register through the real API. */
import { randomBytes } from 'node:crypto';
import type { ApiApp } from '../../services/api/app.js';

export const STRONG_PASSWORD = 'Bulldozer-Sunset-42';

export type SignedIn = { access_token: string; refresh_token: string; user: { id: number; email: string; first_name: string } };

/**
 * A fresh address. Its random part is letters only: hex digits could make a numeric test password
 * ('12345678') "too similar to the email address" about once in a few thousand runs.
 */
export function uniqueEmail(prefix = 'buyer'): string {
  const letters = Array.from(randomBytes(8), (b) => String.fromCharCode(97 + (b % 26))).join('');
  return `${prefix}-${letters}@example.com`;
}

export function registrationPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    email: uniqueEmail(),
    password1: STRONG_PASSWORD,
    password2: STRONG_PASSWORD,
    first_name: 'Dana',
    last_name: 'Miller',
    terms_accepted: true,
    ...overrides,
  };
}

/** Registers a user through POST /api/auth/register/ and returns the sign-in answer. */
export async function registerUser(app: ApiApp, overrides: Record<string, unknown> = {}): Promise<SignedIn> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/register/', payload: registrationPayload(overrides) });
  if (res.statusCode !== 201) throw new Error(`registration failed: ${res.statusCode} ${res.body}`);
  return res.json() as SignedIn;
}

export function bearer(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}
