/**
 * `npm run bench:score`: training time of the fair-value model on 20,000 sales and its prediction
 * speed. Data: the 16,029 priced Fast Iron sales here (Train slice + Valid Jan–Feb 2012), topped up
 * to 20,000 by resampling them (seeded); predictions on the 24,030 unpriced Valid + Test rows.
 * Runs on this machine alone, no database. `-- --members 1` trains a single boosted model instead
 * of the default ensemble (to price the ensemble back to back).
 */
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../services/shared/config.js';
import { readFastIron, readSalePrices } from '../../services/shared/datasets/fastiron.js';
import { trainFairValueModel } from '../../services/valuation/fair-value-model.js';
import { fastIronToInput, fastIronToSale } from '../../services/valuation/fastiron-sales.js';
import type { TrainingSale, ValuationInput } from '../../services/valuation/features.js';
import { seededRandom } from '../../services/shared/seeded-random.js';

const TRAIN_ROWS = 20_000;
const dir = path.join(loadConfig().SHARED_DIR, 'data/bulldozers');
const prices = await readSalePrices(path.join(dir, 'ValidSolution_2012-01_to_02.csv'));
const priced: TrainingSale[] = [];
const unpriced: ValuationInput[] = [];
for (const file of ['Train_first10931rows.csv.gz', 'Valid.csv.gz', 'Test.csv.gz']) {
  for await (const record of readFastIron(path.join(dir, file), { prices })) {
    const sale = fastIronToSale(record);
    if (sale) priced.push(sale);
    else {
      const input = fastIronToInput(record);
      if (input) unpriced.push(input);
    }
  }
}
const random = seededRandom(2026);
const train = [...priced];
while (train.length < TRAIN_ROWS) train.push(priced[Math.floor(random() * priced.length)]!);

/** Wall and CPU seconds of `work`: the machine is shared, so CPU time is the steadier figure. */
function timed<T>(work: () => T): { result: T; wall: number; cpu: number } {
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const result = work();
  const cpu = process.cpuUsage(cpu0);
  return { result, wall: (performance.now() - wall0) / 1000, cpu: (cpu.user + cpu.system) / 1e6 };
}

const membersFlag = process.argv.indexOf('--members');
const members = membersFlag > 0 ? Number(process.argv[membersFlag + 1]) : undefined;
if (members !== undefined && !(Number.isInteger(members) && members >= 1)) throw new Error('--members needs a whole number ≥ 1');
const training = timed(() => trainFairValueModel(train, { members }));
const model = training.result.model;
const batch = timed(() => model.valueAll(unpriced));
const singles = Math.min(5000, unpriced.length);
const single = timed(() => {
  for (let i = 0; i < singles; i++) model.value(unpriced[i]!);
});
const rate = (n: number, t: { wall: number; cpu: number }) => `${Math.round(n / t.wall)} (${Math.round(n / t.cpu)} per CPU second)`;
const json = JSON.stringify(model.toJSON());

console.log(`bench:score — ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
console.table([
  { figure: 'training rows', value: `${train.length} (${priced.length} real sales + ${train.length - priced.length} resampled)` },
  { figure: 'training time (holdout fit + final fit)', value: `${training.wall.toFixed(1)} s wall, ${training.cpu.toFixed(1)} s CPU` },
  { figure: 'trees in the final model (all members)', value: `${model.treeCount} (${1 + (model.data.extraGbdts?.length ?? 0)} boosted models averaged)` },
  { figure: 'model size (JSON)', value: `${(json.length / 1e6).toFixed(1)} MB` },
  { figure: `predictions/s, batch of ${unpriced.length}`, value: rate(unpriced.length, batch) },
  { figure: `predictions/s, one at a time (${singles})`, value: rate(singles, single) },
]);
