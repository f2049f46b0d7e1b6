/**
 * `npm run soak -- --minutes N [--seed S]`: the fault suite's longer, randomized run. Starts its
 * own embedded PostgreSQL (a temp folder, removed at the end), the demo auction site and a local
 * SMTP server, all on this machine; runs the job kinds once uninterrupted, then, until the time is
 * up, again and again with the workers killed (SIGKILL) at a random fault point and hit count,
 * and compares each end state with the uninterrupted one. Prints one JSON line: what it killed
 * and what it found (`mismatches` empty when every run ended as the uninterrupted one; a mail
 * received twice after a kill between the mail server's accept and the sent mark is listed under
 * `duplicates_by_design`, the one window no sender can close: `end-state-diff.ts`).
 */
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { startDemoSite } from '../demo-site/demo-server.js';
import { loadCatalog } from '../demo-site/demo-catalog.js';
import { parseArgs } from '../cli/command.js';
import { runMigrations } from '../../services/shared/database/db.js';
import { openSql, withDatabase } from '../../services/shared/database/connection-url.js';
import { startEmbeddedPostgres } from '../../services/shared/database/embedded-postgres.js';
import { loadConfig } from '../../services/shared/config.js';
import { FAULT_POINTS } from '../../services/shared/fault-points.js';
import { seededRandom } from '../../services/shared/seeded-random.js';
import { importKilledAndRerun, phaseOf, prepareHarness, runThrough, type EndState, type Phase } from '../../tests/support/fault-harness.js';
import { startFakeSmtp } from '../../tests/support/fake-smtp.js';
import { compareEndStates } from './end-state-diff.js';

const { flags } = parseArgs(process.argv.slice(2), { minutes: { kind: 'value' }, seed: { kind: 'value' } });
const minutes = Number(flags.minutes ?? 5);
const seed = Number(flags.seed ?? Date.now() % 100_000);
if (!Number.isFinite(minutes) || minutes <= 0) {
  process.stderr.write('Usage: npm run soak -- --minutes N [--seed S]\n');
  process.exit(2);
}
const random = seededRandom(seed);
const shared = loadConfig().SHARED_DIR;
const dir = mkdtempSync(path.join(os.tmpdir(), 'deal-radar-soak-'));
chmodSync(dir, 0o755);
const log = (line: string) => process.stderr.write(`[soak] ${line}\n`);

const pg = await startEmbeddedPostgres({ dataDir: dir });
const site = await startDemoSite({ catalog: await loadCatalog(shared), lots: 16, seed: 7, speed: 0, publishedShare: 1, host: '127.0.0.1', port: 0 });
const smtp = await startFakeSmtp();
const adminUrl = withDatabase(pg.url, 'postgres');
const found: { runs: number; killed: Array<{ point: string; at: number; killed: boolean }>; mismatches: Array<{ point: string; at: number; diff: Record<string, { expected: unknown; got: unknown }> }>; duplicatesByDesign: Array<{ point: string; at: number; keys: string[] }>; errors: string[] } = {
  runs: 0,
  killed: [],
  mismatches: [],
  duplicatesByDesign: [],
  errors: [],
};
try {
  const admin = openSql(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe('CREATE DATABASE soak_template');
  await admin.end();
  await runMigrations(withDatabase(pg.url, 'soak_template'));
  const harness = await prepareHarness({ adminUrl, template: 'soak_template', siteUrl: site.url, smtp });
  const deadline = Date.now() + minutes * 60_000;
  log(`seed ${seed}; an uninterrupted run first`);
  const baseline: Partial<Record<Phase, EndState>> = (await runThrough(harness)).states;
  while (Date.now() < deadline) {
    const point = FAULT_POINTS[Math.floor(random() * FAULT_POINTS.length)]!;
    const at = 1 + Math.floor(random() * 5);
    found.runs++;
    try {
      if (point === 'sales-import-batch') {
        const r = await importKilledAndRerun(harness, at, path.join(shared, 'data/bulldozers/Train_first10931rows.csv.gz'));
        found.killed.push({ point, at, killed: r.killed });
        if (r.sales !== 10_931 || r.status !== 'complete') found.mismatches.push({ point, at, diff: { sales: { expected: 10_931, got: r.sales }, status: { expected: 'complete', got: r.status } } });
        log(`${point}:${at} killed=${r.killed} sales=${r.sales}`);
        continue;
      }
      const phase = phaseOf(point);
      const run = await runThrough(harness, { point, at }, { until: phase });
      const expected = baseline[phase]!;
      found.killed.push({ point, at, killed: run.killed });
      const { diff, duplicatesByDesign } = compareEndStates(expected, run.state, { point, at }, isDeepStrictEqual);
      if (Object.keys(diff).length > 0) found.mismatches.push({ point, at, diff });
      if (duplicatesByDesign.length > 0) found.duplicatesByDesign.push({ point, at, keys: duplicatesByDesign });
      const dup = duplicatesByDesign.length > 0 ? ` (${duplicatesByDesign.length} mail(s) twice: killed between accept and sent mark)` : '';
      log(`${point}:${at} killed=${run.killed} ${Object.keys(diff).length === 0 ? `same end state${dup}` : `DIFFERENT: ${Object.keys(diff).join(', ')}`}`);
    } catch (err) {
      found.errors.push(`${point}:${at}: ${err instanceof Error ? err.message.slice(0, 500) : String(err)}`);
      log(`${point}:${at} error`);
    }
  }
  await harness.drop();
} finally {
  await smtp.close();
  await site.close();
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(
  `${JSON.stringify({ minutes, seed, runs: found.runs, kills: found.killed.filter((k) => k.killed).length, killed: found.killed, mismatches: found.mismatches, duplicates_by_design: found.duplicatesByDesign, errors: found.errors, ok: found.mismatches.length === 0 && found.errors.length === 0 })}\n`,
);
process.exit(found.mismatches.length === 0 && found.errors.length === 0 ? 0 : 1);
