/**
 * argon2id via @node-rs/argon2 (its defaults are argon2id, 19 MiB, 2 passes: OWASP's
 * recommendation). A dummy hash lets unknown-account checks cost the same as real ones.
 */
import { hash, verify } from '@node-rs/argon2';

export async function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false; // a malformed stored hash never signs anyone in
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies against a real hash when there is one, else burns the same time on a dummy hash so
 * that "no such account" and "wrong password" cannot be told apart by timing. Always false without a hash.
 */
export async function verifyPasswordOrDummy(passwordHash: string | null | undefined, password: string): Promise<boolean> {
  if (passwordHash) return verifyPassword(passwordHash, password);
  dummyHash ??= hash('dummy password that is never anyone\u2019s');
  await verifyPassword(await dummyHash, password);
  return false;
}
