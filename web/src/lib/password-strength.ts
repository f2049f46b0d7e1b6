/** Password strength (spec §5): a point each for length ≥ 8, lowercase, uppercase, digit, symbol. */
import { MIN_PASSWORD_LENGTH } from '../config/constants.js';

export type PasswordStrengthLabel = 'Weak' | 'Fair' | 'Good' | 'Strong';

export function passwordScore(password: string): number {
  let score = 0;
  if (password.length >= MIN_PASSWORD_LENGTH) score++;
  if (/[a-z]/.test(password)) score++;
  if (/[A-Z]/.test(password)) score++;
  if (/[0-9]/.test(password)) score++;
  if (/[^A-Za-z0-9]/.test(password)) score++;
  return score;
}

/** 0–2 Weak, 3 Fair, 4 Good, 5 Strong. */
export function passwordStrength(password: string): { score: number; label: PasswordStrengthLabel } {
  const score = passwordScore(password);
  const label: PasswordStrengthLabel = score <= 2 ? 'Weak' : score === 3 ? 'Fair' : score === 4 ? 'Good' : 'Strong';
  return { score, label };
}
