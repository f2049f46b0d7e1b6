/** A fresh migrated database per test file, cloned from the run's template (fast, isolated). */
import { randomBytes } from 'node:crypto';
import { openSql, withDatabase } from '../../services/shared/database/connection-url.js';
import { inject } from 'vitest';

export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = inject('pgAdminUrl');
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = openSql(adminUrl, { max: 1, onnotice: () => {} });
  // CREATE DATABASE … TEMPLATE needs the template free of other sessions; retry briefly if busy.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${inject('templateDb')}`);
      break;
    } catch (err) {
      if (attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await admin.end();
  return {
    url: withDatabase(adminUrl, name),
    async drop() {
      const a = openSql(adminUrl, { max: 1, onnotice: () => {} });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
