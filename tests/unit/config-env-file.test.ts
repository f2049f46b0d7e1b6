/**
 * `.env` is read (the environment wins over it): the layering as a pure function, and a real
 * process started in a folder holding a `.env`, as `cp .env.example .env && npm start` does.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { layeredEnvironment, parseConfig, readEnvFile } from '../../services/shared/config.js';

const repo = path.resolve(import.meta.dirname, '../..');

describe('.env file', () => {
  it('is parsed as dotenv does (comments, quotes, blank values); a missing file is no variables', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'deal-radar-env-'));
    writeFileSync(path.join(dir, '.env'), '# a comment\nPORT=9123\nMAIL_FROM="Radar <r@example.com>"\nREDIS_URL=\n');
    expect(readEnvFile(path.join(dir, '.env'))).toEqual({ PORT: '9123', MAIL_FROM: 'Radar <r@example.com>', REDIS_URL: '' });
    expect(readEnvFile(path.join(dir, 'absent.env'))).toEqual({});
  });

  it('layers defaults < .env < the environment < overrides', () => {
    const env = layeredEnvironment({
      defaults: { LOG_LEVEL: 'warn', PORT: '1' },
      file: { PORT: '2', LOG_LEVEL: 'debug', HOST: '127.0.0.1' },
      env: { PORT: '3' },
      overrides: { CRAWL_SOURCES: 'demo' },
    });
    const config = parseConfig(env);
    expect(config.PORT).toBe(3);
    expect(config.LOG_LEVEL).toBe('debug');
    expect(config.HOST).toBe('127.0.0.1');
    expect(config.CRAWL_SOURCES).toEqual(['demo']);
  });

  it('a process reads the .env of its working directory, and its environment wins', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'deal-radar-env-'));
    writeFileSync(path.join(dir, '.env'), 'PORT=9123\nCRAWL_SOURCES=purplewave,bidspotter\nALERT_DIGEST_HOUR_UTC=5\n');
    const script = `import { loadConfig } from ${JSON.stringify(pathToFileURL(path.join(repo, 'services/shared/config.ts')).href)};
const c = loadConfig();
console.log(JSON.stringify({ port: c.PORT, sources: c.CRAWL_SOURCES, hour: c.ALERT_DIGEST_HOUR_UTC }));`;
    const { PORT: _port, CRAWL_SOURCES: _sources, ALERT_DIGEST_HOUR_UTC: _hour, ...env } = process.env;
    const run = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(repo, 'node_modules/tsx/dist/loader.mjs')).href, '--input-type=module', '-e', script], {
      cwd: dir,
      env: { ...env, ALERT_DIGEST_HOUR_UTC: '9' },
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ port: 9123, sources: ['purplewave', 'bidspotter'], hour: 9 });
  });
});
