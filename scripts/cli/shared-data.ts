/**
 * The licensed data and recorded pages live outside the repository (SHARED_DIR, `../shared` by
 * default). A command that reads them on a checkout without that folder says so and how to fix
 * it, instead of ending in an ENOENT stack trace.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export function missingSharedDataMessage(err: unknown, sharedDir: string): string | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  if (e?.code !== 'ENOENT' || typeof e.path !== 'string') return undefined;
  const root = path.resolve(sharedDir);
  const missing = path.resolve(e.path);
  if (missing !== root && !missing.startsWith(`${root}${path.sep}`)) return undefined;
  return (
    `The shared data this command reads is missing: ${missing}\n` +
    `It comes from the shared folder (SHARED_DIR=${root}; by default ../shared beside the repository), ` +
    'which is not part of the repository. Put that folder there, or set SHARED_DIR to where it is (see .env.example).\n'
  );
}

/** Fails early, with the path, when a file or folder under SHARED_DIR is not there (before streams that would crash on it). */
export function requireSharedData(sharedDir: string, ...relative: string[]): void {
  for (const rel of relative) {
    const full = path.resolve(sharedDir, rel);
    if (!existsSync(full)) throw Object.assign(new Error(`ENOENT: no such file or directory, '${full}'`), { code: 'ENOENT', path: full });
  }
}
