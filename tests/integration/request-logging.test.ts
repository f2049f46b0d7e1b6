/**
 * Logs a person reads: one line per answered request (not fastify's two), and readable lines on
 * a terminal (pino-pretty) while pipes and files get JSON.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type ApiApp } from '../../services/api/app.js';
import { createTestContext, type TestContext } from '../support/context.js';

const repo = path.resolve(import.meta.dirname, '../..');
const lines: string[] = [];
let ctx: TestContext;
let app: ApiApp;

beforeAll(async () => {
  ctx = await createTestContext();
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  app = await buildApp({ ...ctx, logger: pino({ level: 'info' }, sink) }, { webDist: '/nonexistent' });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await ctx?.close();
});

describe('request logs', () => {
  it('one line per request, with method, path, status and time', async () => {
    lines.length = 0;
    await app.inject({ method: 'GET', url: '/api/health/' });
    await app.inject({ method: 'GET', url: '/api/no-such-thing/' });
    const requests = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.reqId !== undefined);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ msg: 'request', method: 'GET', url: '/api/health/', status: 200 });
    expect(requests[1]).toMatchObject({ msg: 'request', url: '/api/no-such-thing/', status: 404 });
    expect(typeof requests[0]!.ms).toBe('number');
  });
});

describe('log format', () => {
  const logOnce = (format: string) => {
    const script = `import { createLogger } from ${JSON.stringify(pathToFileURL(path.join(repo, 'services/shared/logger.ts')).href)};
createLogger({ LOG_LEVEL: 'info', LOG_FORMAT: ${JSON.stringify(format)} }).info({ listing: 42 }, 'listing scored');`;
    const run = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(repo, 'node_modules/tsx/dist/loader.mjs')).href, '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    return run.stdout.trim();
  };

  it('pretty: a readable line, not JSON', () => {
    const out = logOnce('pretty');
    expect(out).toMatch(/INFO.*listing scored/);
    expect(() => JSON.parse(out)).toThrow();
  });

  it('auto on a pipe, and json: one JSON object per line', () => {
    for (const format of ['auto', 'json']) expect(JSON.parse(logOnce(format))).toMatchObject({ level: 30, msg: 'listing scored', listing: 42 });
  });
});
