import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runModelEval } from '../../scripts/cli/model-eval-command.js';
import { seededRandom } from '../../services/shared/seeded-random.js';

// A small Fast Iron file: two wheel-loader models whose price falls with age, sold 2008–2011.
const random = seededRandom(11);
const header = 'SalesID,SalePrice,MachineID,ModelID,YearMade,MachineHoursCurrentMeter,saledate,fiModelDesc,fiBaseModel,state,ProductGroup';
const lines = Array.from({ length: 400 }, (_, i) => {
  const big = i % 2 === 0;
  const year = 1995 + Math.floor(random() * 12);
  const sale = new Date(Date.UTC(2008 + Math.floor(i / 100), Math.floor(random() * 12), 1 + Math.floor(random() * 27)));
  const price = Math.round((big ? 120_000 : 60_000) * Math.exp(-0.08 * (sale.getUTCFullYear() - year)) * (0.85 + random() * 0.3));
  const date = `${sale.getUTCMonth() + 1}/${sale.getUTCDate()}/${sale.getUTCFullYear()} 0:00`;
  return `${i + 1},${price},${1000 + i},${big ? 7 : 8},${year},${2000 + Math.floor(random() * 8000)},${date},${big ? '980G' : '950G'},${big ? '980' : '950'},Texas,WL`;
});

let dir = '';
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('model:eval --save-model / --load-model', () => {
  it('re-scores the same split with a saved model, without training, to the same figures', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'model-eval-'));
    const csv = path.join(dir, 'sales.csv');
    await writeFile(csv, `${header}\n${lines.join('\n')}\n`);
    const saved = path.join(dir, 'model.json');
    const split = ['--train', csv, '--test', csv, '--train-before', '2011-01-01', '--test-from', '2011-01-01', '--json'];
    const first: string[] = [];
    expect(await runModelEval([...split, '--save-model', saved], (l) => first.push(l))).toBe(0);
    const second: string[] = [];
    expect(await runModelEval([...split, '--load-model', saved], (l) => second.push(l))).toBe(0);
    expect(first.some((l) => l.startsWith('trained in'))).toBe(true);
    expect(second.some((l) => l.startsWith(`loaded from ${saved}`))).toBe(true);
    const json = (out: string[]) => JSON.parse(out.at(-1)!) as { rows: number; rmsle: number; deal_flags: Record<string, unknown> };
    expect(json(first).rows).toBe(100);
    expect(json(second)).toEqual(json(first));
    // --dump-errors: one line per test sale, its value as the scorer wrote it and its log error
    const dump = path.join(dir, 'errors.jsonl');
    expect(await runModelEval([...split, '--load-model', saved, '--dump-errors', dump], () => {})).toBe(0);
    const rows = (await readFile(dump, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { type: string; price: number; fair_value: number; log_error: number });
    expect(rows).toHaveLength(100);
    expect(rows.every((r) => r.type === 'wheel-loaders' && r.fair_value > 0)).toBe(true);
    for (const r of rows) expect(r.log_error).toBeCloseTo(Math.log1p(r.price) - Math.log1p(r.fair_value), 10);
    const rmsle = Math.sqrt(rows.reduce((a, r) => a + r.log_error ** 2, 0) / rows.length);
    expect(rmsle).toBeCloseTo(json(first).rmsle, 6);
    // a flag without a file is a usage error, not a silent training run
    const stderr: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      expect(await runModelEval([...split, '--load-model'], () => {})).toBe(2);
    } finally {
      process.stderr.write = write;
    }
    expect(stderr.join('')).toContain('--load-model needs a file');
  }, 120_000);
});
