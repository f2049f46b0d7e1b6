/**
 * Which base images the compose smoke runs on. docker-compose.yml names them through variables
 * (NODE_IMAGE as the Dockerfile's build argument, POSTGRES_IMAGE, REDIS_IMAGE); Compose itself
 * resolves them (`config`), so whatever the operator exported is what is checked. An image on
 * the host is used as it is; a missing one is pulled only when asked (`--pull`: the one thing
 * here that would reach a registry), else stand-ins are built from Debian's packages
 * (scripts/compose/standin-images.sh) and named through the same variables.
 */
import path from 'node:path';
import { parse } from 'yaml';
import { runCommand, tail, type ComposeStack } from './stack.js';

/** The stand-ins' tags (standin-images.sh): the node base keeps the official name. */
export const STANDIN = { node: 'node:20-bookworm-slim', postgres: 'local/postgres:15-debian', redis: 'local/redis:7-debian' } as const;

export type BaseImages = { node: string; postgres: string; redis: string };
type Role = keyof BaseImages;
const VARIABLE: Record<Role, string> = { node: 'NODE_IMAGE', postgres: 'POSTGRES_IMAGE', redis: 'REDIS_IMAGE' };

/** The images a resolved compose file names for the node base, PostgreSQL and Redis. */
export function baseImagesOf(resolvedConfig: string): BaseImages {
  const config = parse(resolvedConfig) as { services: Record<string, { image?: string; build?: { args?: Record<string, string> } }> };
  const node = config.services.api?.build?.args?.NODE_IMAGE;
  const postgres = config.services.postgres?.image;
  const redis = config.services.redis?.image;
  if (!node || !postgres || !redis) throw new Error('docker-compose.yml names no NODE_IMAGE build argument for api, or no postgres or redis image');
  return { node, postgres, redis };
}

async function present(image: string): Promise<boolean> {
  return (await runCommand(['docker', 'image', 'inspect', image], { timeoutMs: 60_000 })).code === 0;
}

/** "official" or "stand-in": an image made by `docker import` (the stand-ins) says so in its comment. */
async function origin(image: string): Promise<string> {
  const res = await runCommand(['docker', 'image', 'inspect', '--format', '{{.Comment}}', image]);
  return /import/i.test(res.stdout) ? 'stand-in built from Debian packages' : 'from a registry';
}

export type ImagePlan = { images: BaseImages; env: Record<string, string>; lines: string[] };

/**
 * Makes sure every base image is on the host; returns the variables to run compose with and one
 * line per image saying which it is.
 */
export async function prepareBaseImages(stack: ComposeStack, opts: { pull: boolean; repo: string }): Promise<ImagePlan> {
  const wanted = baseImagesOf(await stack.composeOrThrow(['config']));
  const images: BaseImages = { ...wanted };
  const env: Record<string, string> = {};
  const missing: Role[] = [];
  for (const role of Object.keys(wanted) as Role[]) {
    if (await present(wanted[role])) continue;
    if (opts.pull) {
      const pulled = await runCommand(['docker', 'pull', wanted[role]], { timeoutMs: 10 * 60_000 });
      if (pulled.code === 0) continue;
    }
    missing.push(role);
  }
  const standinsMissing: Role[] = [];
  for (const role of missing) if (!(await present(STANDIN[role]))) standinsMissing.push(role);
  if (standinsMissing.length > 0) {
    const script = path.join(opts.repo, 'scripts/compose/standin-images.sh');
    const built = await runCommand(['bash', script], { timeoutMs: 30 * 60_000 });
    if (built.code !== 0) throw new Error(`stand-in images (${script}) failed:\n${tail(built)}`);
  }
  for (const role of missing) {
    images[role] = STANDIN[role];
    env[VARIABLE[role]] = STANDIN[role];
  }
  const lines: string[] = [];
  for (const role of Object.keys(images) as Role[]) {
    const note = images[role] === wanted[role] ? '' : ` in place of ${wanted[role]}, which is not on this host`;
    lines.push(`${VARIABLE[role]}=${images[role]} (${await origin(images[role])}${note})`);
  }
  return { images, env, lines };
}
