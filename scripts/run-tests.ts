/**
 * `npm test`: runs every test (unit, integration, e2e) with vitest, then prints the plain
 * `N passed, N failed` line CI reads. Extra arguments go to vitest (e.g. a file filter).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const resultsFile = path.resolve('test-results/vitest.json');
mkdirSync(path.dirname(resultsFile), { recursive: true });
rmSync(resultsFile, { force: true });

const run = spawnSync(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${resultsFile}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);

let passed = 0;
let failed = 0;
try {
  const report = JSON.parse(readFileSync(resultsFile, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    testResults: { status: string; assertionResults: unknown[] }[];
  };
  passed = report.numPassedTests;
  failed = report.numFailedTests;
  // A file that failed to load (syntax error, failing hook) has no test results: count it as failed.
  failed += report.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
} catch {
  failed = Math.max(failed, 1);
}
if (run.status !== 0 && failed === 0) failed = 1;
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 || run.status !== 0 ? 1 : 0);
