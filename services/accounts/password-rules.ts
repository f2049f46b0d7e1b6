/**
 * Password rules, as Django's default validators: minimum length, not entirely numeric, not a
 * common password, not too similar to the user's e-mail or name. Pure: returns every message
 * that applies (empty when the password is acceptable).
 */
import { isCommonPassword } from './common-passwords.js';

export const MIN_PASSWORD_LENGTH = 8;
/** Long enough for any passphrase; bounded so hashing cannot be used to burn CPU. */
export const MAX_PASSWORD_LENGTH = 1024;
/** Django's default for UserAttributeSimilarityValidator. */
export const MAX_SIMILARITY = 0.7;

export type PasswordOwner = { email?: string | null; firstName?: string | null; lastName?: string | null };

const ATTRIBUTE_LABELS: Array<[keyof PasswordOwner, string]> = [
  ['email', 'email address'],
  ['firstName', 'first name'],
  ['lastName', 'last name'],
];

export function passwordProblems(password: string, owner: PasswordOwner = {}): string[] {
  const problems: string[] = [];
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    problems.push(`This password is too short. It must contain at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    problems.push(`This password is too long. It must contain at most ${MAX_PASSWORD_LENGTH} characters.`);
  }
  const similarTo = similarAttribute(password, owner);
  if (similarTo) problems.push(`The password is too similar to the ${similarTo}.`);
  if (isCommonPassword(password)) problems.push('This password is too common.');
  if (/^\d+$/.test(password)) problems.push('This password is entirely numeric.');
  return problems;
}

/** The label of the first attribute the password is too similar to, if any. */
export function similarAttribute(password: string, owner: PasswordOwner): string | undefined {
  const lowered = password.toLowerCase();
  for (const [key, label] of ATTRIBUTE_LABELS) {
    const value = owner[key];
    if (!value) continue;
    const valueLower = value.toLowerCase();
    const parts = [...valueLower.split(/[^\p{L}\p{N}_]+/u), valueLower].filter(Boolean);
    for (const part of parts) {
      if (exceedsMaximumLengthRatio(lowered, part)) continue;
      if (quickRatio(lowered, part) >= MAX_SIMILARITY) return label;
    }
  }
  return undefined;
}

/**
 * A very short attribute cannot make a long password guessable (Django's rule): skip it when the
 * password is at least ten times longer and the attribute is under half the similarity bound.
 */
function exceedsMaximumLengthRatio(password: string, value: string): boolean {
  const passwordLength = password.length;
  return passwordLength >= 10 * value.length && value.length < (MAX_SIMILARITY / 2) * passwordLength;
}

/** Python's SequenceMatcher.quick_ratio: 2 × shared characters (as multisets) / total length. */
export function quickRatio(a: string, b: string): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  const available = new Map<string, number>();
  for (const ch of b) available.set(ch, (available.get(ch) ?? 0) + 1);
  let matches = 0;
  for (const ch of a) {
    const left = available.get(ch) ?? 0;
    if (left > 0) {
      matches++;
      available.set(ch, left - 1);
    }
  }
  return (2 * matches) / total;
}
