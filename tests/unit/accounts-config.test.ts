import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../services/shared/config.js';

describe('accounts configuration', () => {
  it('requires a strong JWT_SECRET in production on an external database', () => {
    expect(() => parseConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x' })).toThrow(ConfigError);
    try {
      parseConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x' });
    } catch (err) {
      expect((err as ConfigError).problems[0]).toMatch(/^JWT_SECRET: JWT_SECRET is required when NODE_ENV=production/);
    }
    expect(() => parseConfig({ NODE_ENV: 'production', JWT_SECRET: 'short' })).toThrow(/at least 32/);
    expect(parseConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', JWT_SECRET: 'x'.repeat(32) }).JWT_SECRET).toBe('x'.repeat(32));
  });

  it('lets the embedded single-machine product and development generate their secret', () => {
    expect(parseConfig({ NODE_ENV: 'production' }).JWT_SECRET).toBeUndefined();
    expect(parseConfig({ NODE_ENV: 'development', DATABASE_URL: 'postgres://db/x' }).JWT_SECRET).toBeUndefined();
  });

  it('has abuse-limit defaults', () => {
    const config = parseConfig({});
    expect(config.AUTH_IP_RATE_LIMIT).toBe(20);
    expect(config.AUTH_ACCOUNT_RATE_LIMIT).toBe(10);
    expect(config.AUTH_ACCOUNT_RATE_WINDOW_SECONDS).toBe(900);
    expect(config.PASSWORD_RESET_TTL_SECONDS).toBe(86_400);
  });
});
