/**
 * The most common passwords, from zxcvbn-ts's ranked list (leaked-password frequency). Only
 * entries of at least the minimum length matter: shorter ones already fail the length rule.
 */
import { dictionary } from '@zxcvbn-ts/language-common';

const MIN_LENGTH_WORTH_KEEPING = 8;

let cached: ReadonlySet<string> | undefined;

/** Lower-cased, built on first use (about 20k entries, a few milliseconds). */
export function commonPasswords(): ReadonlySet<string> {
  cached ??= new Set(dictionary['passwords-common'].filter((p) => p.length >= MIN_LENGTH_WORTH_KEEPING).map((p) => p.toLowerCase()));
  return cached;
}

export function isCommonPassword(password: string): boolean {
  return commonPasswords().has(password.trim().toLowerCase());
}
