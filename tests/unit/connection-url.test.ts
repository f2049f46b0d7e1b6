import { describe, expect, it } from 'vitest';
import { databaseOf, socketDirOf, socketUrl, withDatabase } from '../../services/shared/database/connection-url.js';

describe('connection URLs', () => {
  const url = socketUrl({ user: 'postgres', password: 'p/w@:?x', socketDir: '/tmp/deal radar/pg', port: 5432, database: 'dealradar' });

  it('names the socket folder in libpq form and keeps the password intact', () => {
    expect(socketDirOf(url)).toBe('/tmp/deal radar/pg');
    const u = new URL(url);
    expect(decodeURIComponent(u.password)).toBe('p/w@:?x');
    expect(databaseOf(url)).toBe('dealradar');
  });

  it('swaps the database without losing the socket', () => {
    const other = withDatabase(url, 'test_abc');
    expect(databaseOf(other)).toBe('test_abc');
    expect(socketDirOf(other)).toBe('/tmp/deal radar/pg');
    expect(databaseOf(withDatabase('postgres://u:p@127.0.0.1:5432/dealradar', 'postgres'))).toBe('postgres');
  });

  it('reads a TCP URL as no socket', () => {
    expect(socketDirOf('postgres://u:p@127.0.0.1:5432/db')).toBeUndefined();
    expect(socketDirOf('postgres://u:p@db.example:5432/db?sslmode=require')).toBeUndefined();
    expect(socketDirOf('not a url')).toBeUndefined();
  });
});
