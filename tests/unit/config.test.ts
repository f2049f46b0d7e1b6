import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../services/shared/config.js';

describe('configuration', () => {
  it('has working defaults for the embedded product', () => {
    const config = parseConfig({});
    expect(config.PORT).toBe(8080);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.QUEUE_BACKEND).toBe('postgres');
    expect(config.APP_URL).toBe('http://localhost:8080');
    expect(config.CORS_ORIGINS).toEqual(['http://localhost:8080']);
    expect(config.SERVICES).toEqual(['api', 'crawler', 'scorer', 'matcher', 'notifier', 'scheduler']);
  });

  it('switches the queue backend to Redis when REDIS_URL is set', () => {
    expect(parseConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).QUEUE_BACKEND).toBe('redis');
  });

  it('treats empty optional variables as unset', () => {
    const config = parseConfig({ DATABASE_URL: '', SENDGRID_API_KEY: '  ' });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.SENDGRID_API_KEY).toBeUndefined();
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      parseConfig({ PORT: 'eighty', DATABASE_URL: 'not a url', SERVICES: 'api,teleporter', LOG_LEVEL: 'loud' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'DATABASE_URL', 'SERVICES', 'LOG_LEVEL']) expect(problems).toContain(name);
    expect((error as ConfigError).message).toContain('"eighty"');
  });

  it('keeps crawlers on loopback under tests and CI', () => {
    expect(parseConfig({ NODE_ENV: 'test' }).CRAWL_ALLOW_ONLY_LOOPBACK).toBe(true);
    expect(parseConfig({ NODE_ENV: 'production', CRAWL_ALLOW_ONLY_LOOPBACK: 'false' }).CRAWL_ALLOW_ONLY_LOOPBACK).toBe(false);
  });
});
