/**
 * Ctrl-C during the first start's sales import (issue 29): the real scorer process imports the
 * licensed sales history on a fresh database; stopped part-way (SIGINT, as a terminal's Ctrl-C;
 * or SIGKILL, as a crash), it logs an orderly cancel, not an error, and the next start resumes the
 * import to the full history before the first model is queued. `npm run cli -- sales --json`
 * shows the state at each step.
 */
import type postgres from 'postgres';
import { openSql } from '../../services/shared/database/connection-url.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { baseEnv, logLines, runCliCommand, startService, type ServiceProcess } from '../support/service-process.js';
import { waitFor } from '../support/wait.js';

/** 10,931 training sales + 5,098 priced January–February 2012 sales (valuation-bootstrap.test.ts). */
const FASTIRON_SALES = 10_931 + 5_098;

type SalesJson = { rows: number; by_origin: Record<string, number>; import: string; imports: Array<{ status: string; rows_done: number; attempts: number }> };

async function salesJson(env: Record<string, string>): Promise<SalesJson> {
  const { code, stdout, stderr } = await runCliCommand(['sales', '--json'], env);
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as SalesJson;
}

for (const signal of ['SIGINT', 'SIGKILL'] as const) {
  describe(`the first start's sales import stopped with ${signal}`, () => {
    let database: Awaited<ReturnType<typeof createTestDatabase>>;
    let sql: postgres.Sql;
    let env: Record<string, string>;
    const procs: ServiceProcess[] = [];

    beforeAll(async () => {
      database = await createTestDatabase();
      sql = openSql(database.url, { max: 2, onnotice: () => {} });
      env = baseEnv(database.url, { VALUATION_BOOTSTRAP: 'true' });
    });
    afterAll(async () => {
      await Promise.all(procs.map((p) => p.stop('SIGKILL')));
      await sql?.end();
      await database?.drop();
    });

    const sales = async () => Number((await sql`SELECT count(*)::int AS n FROM sold_results`)[0]!.n);

    it('resumes at the next start to the whole history, then queues the first training', async () => {
      const first = startService('scorer', env);
      procs.push(first);
      // Stopped once a few batches are in: far from the ~53,000 sales of the whole import.
      await waitFor(async () => ((await sales()) >= 2000 ? true : undefined), 120_000, `the import to start (${first.output().slice(-2000)})`);
      const code = await first.stop(signal);
      const atStop = await sales();
      expect(atStop).toBeLessThan(FASTIRON_SALES);

      if (signal === 'SIGINT') {
        // An orderly cancel: exit 0, an info line, no error (was: "valuation bootstrap failed … CONNECTION_ENDED").
        expect(code, first.output().slice(-3000)).toBe(0);
        const lines = logLines(first.output());
        expect(lines.filter((l) => Number(l.level) >= 50), first.output().slice(-3000)).toEqual([]);
        expect(lines.some((l) => l.level === 30 && String(l.msg).includes('sales import cancelled'))).toBe(true);
      } else {
        expect(code).toBe('SIGKILL');
      }
      const stopped = await salesJson(env);
      expect(stopped.import).toBe('interrupted');
      expect(stopped.rows).toBe(atStop);
      // Nothing trains on half a history.
      expect(Number((await sql`SELECT count(*)::int AS n FROM model_versions`)[0]!.n)).toBe(0);

      const second = startService('scorer', env);
      procs.push(second);
      await waitFor(
        async () => ((await sql`SELECT count(*)::int AS n FROM sales_imports WHERE status = 'complete'`)[0]!.n === 4 ? true : undefined),
        360_000,
        `the import to be resumed and completed (${second.output().slice(-2000)})`,
      );
      const byOrigin = Object.fromEntries(
        (await sql<{ origin: string; n: number }[]>`SELECT origin, count(*)::int AS n FROM sold_results GROUP BY origin`).map((r) => [r.origin, r.n]),
      );
      expect(byOrigin['import:fastiron']).toBe(FASTIRON_SALES);
      expect(byOrigin['import:westauction']).toBeGreaterThan(700);
      expect(byOrigin['import:rbauction']).toBeGreaterThan(30_000);
      const resumed = logLines(second.output()).find((l) => l.msg === 'resuming an interrupted sales import');
      expect(resumed?.rowsDone).toBeGreaterThan(0);

      const done = await salesJson(env);
      expect(done.import).toBe('complete');
      expect(done.rows).toBe(FASTIRON_SALES + byOrigin['import:westauction']! + byOrigin['import:rbauction']!);
      expect(done.by_origin).toEqual(byOrigin);
      expect(done.imports.some((i) => i.attempts > 1)).toBe(true);

      // The first training is queued only now, on the whole history.
      await waitFor(
        async () => ((await second.output()).includes('first model training queued') ? true : undefined),
        30_000,
        'the first training to be queued',
      );
      const queued = logLines(second.output()).find((l) => l.msg === 'first model training queued');
      expect(queued?.sales).toBe(done.rows);
      expect(await second.stop('SIGTERM')).toBe(0);
    }, 600_000);
  });
}
