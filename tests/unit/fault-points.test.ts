/**
 * Fault points are configured like everything else: FAULT_POINT and FAULT_SIGNAL go through the
 * config schema (an unknown point, or any point in production, stops start-up), and loadConfig
 * arms the process's point — which then kills the process the n-th time it is reached, not before.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../services/shared/config.js';

const repo = path.resolve(import.meta.dirname, '../..');

describe('fault points', () => {
  it('are read through the config schema: a known point with an optional count, never in production', () => {
    expect(parseConfig({}).FAULT_POINT).toBeUndefined();
    expect(parseConfig({ FAULT_POINT: '' }).FAULT_POINT).toBeUndefined();
    expect(parseConfig({ FAULT_POINT: 'notify-claimed:2' })).toMatchObject({ FAULT_POINT: 'notify-claimed:2', FAULT_SIGNAL: 'SIGKILL' });
    expect(parseConfig({ FAULT_POINT: 'model-stored', FAULT_SIGNAL: 'SIGINT' }).FAULT_SIGNAL).toBe('SIGINT');
    expect(() => parseConfig({ FAULT_POINT: 'no-such-point:1' })).toThrow(/FAULT_POINT: must be <point>\[:<n>\]/);
    expect(() => parseConfig({ FAULT_POINT: 'notify-claimed:0' })).toThrow(ConfigError);
    expect(() => parseConfig({ FAULT_POINT: 'notify-claimed', FAULT_SIGNAL: 'SIGSEGV' })).toThrow(/FAULT_SIGNAL/);
    expect(() => parseConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), FAULT_POINT: 'notify-claimed' })).toThrow(
      /FAULT_POINT: is for fault drills and tests: not allowed when NODE_ENV=production/,
    );
  });

  it('loadConfig arms the point: the process dies the n-th time it gets there', () => {
    const script = [
      "import { loadConfig } from './services/shared/config.ts';",
      "import { faultPoint } from './services/shared/fault-points.ts';",
      'loadConfig();',
      "for (let i = 1; i <= 3; i++) { faultPoint('score-written'); process.stdout.write(`passed ${i}\\n`); }",
    ].join('\n');
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: repo,
        env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env },
        encoding: 'utf8',
        timeout: 30_000,
      });
    const armed = run({ FAULT_POINT: 'score-written:2' });
    expect(armed.signal).toBe('SIGKILL');
    expect(armed.stdout).toBe('passed 1\n');
    expect(armed.stderr).toContain('fault point score-written:2: sending SIGKILL to self');
    const unarmed = run({ FAULT_POINT: 'model-stored' });
    expect(unarmed.status).toBe(0);
    expect(unarmed.stdout).toBe('passed 1\npassed 2\npassed 3\n');
  });
});
