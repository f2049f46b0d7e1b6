/**
 * `npm run bench:train -- [--count 110000] [--seed 1] [--json]`
 *
 * Training at scale (issue 37): --count synthetic sales with the shipped histories' columns and
 * proportions (scripts/bench/synthetic-sales.ts) trained by the product's training — its thread
 * (services/scorer/train-model.ts, trainInThread), its parameters, the deal score calibrated on
 * the scorer's values of the held-out sales — while this thread stays the product's: its event
 * loop is sampled throughout, so a training that starves it shows as delay. Prints the phases as
 * the thread reports them, wall and CPU seconds, the peak resident memory of the process (both
 * threads) overall and per phase, the event loop's delay, and with --json one JSON line last
 * (phases: [seconds at its end, phase, its peak RSS MiB]). Needs no database and
 * talks to no host. Targets: every shipped history (~110,000 sales) ≤ 5 min; 1,000,000 ≤ 15 min
 * and ≤ 4 GiB.
 */
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { trainInThread } from '../../services/scorer/train-model.js';
import { saleSource } from '../../services/valuation/fair-value-model.js';
import { syntheticSaleStream } from './synthetic-sales.js';
import { packSales } from '../../services/scorer/packed-sales.js';

const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '110000' },
    seed: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
  },
});
const COUNT = Number(args.count);
const SEED = Number(args.seed);
if (!Number.isInteger(COUNT) || COUNT < 1000) {
  process.stderr.write('--count needs a whole number ≥ 1000\n');
  process.exit(2);
}
if (!Number.isInteger(SEED)) {
  process.stderr.write('--seed needs a whole number\n');
  process.exit(2);
}
const log = (line: string) => process.stderr.write(`${line}\n`);
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);

const generated = performance.now();
// packed as they are made, as the scorer packs the history it reads (train-model.ts): no million sale objects held
const bySource: Record<string, number> = {};
const packed = packSales(
  (function* () {
    for (const s of syntheticSaleStream(COUNT, SEED)) {
      bySource[saleSource(s)] = (bySource[saleSource(s)] ?? 0) + 1;
      yield s;
    }
  })(),
  COUNT,
);
const generateSeconds = (performance.now() - generated) / 1000;
log(`${COUNT} synthetic sales (${Object.entries(bySource).map(([k, n]) => `${k} ${n}`).join(', ')}) made in ${generateSeconds.toFixed(1)} s; training in the product's thread`);

const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
// the process's resident memory (both threads) sampled through training: each phase's peak
let phasePeak = process.memoryUsage.rss();
const sampler = setInterval(() => (phasePeak = Math.max(phasePeak, process.memoryUsage.rss())), 250);
const phases: [number, string, number][] = [];
const started = performance.now();
const cpu = process.cpuUsage();
let phase = 'handing the packed sales to the thread, unpacking them';
const endPhase = (at: number) => {
  phasePeak = Math.max(phasePeak, process.memoryUsage.rss());
  log(`  [${at.toFixed(0).padStart(4)} s] ${phase.slice(0, 100)}${phase.length > 100 ? '…' : ''}: done, peak RSS ${mib(phasePeak)} MiB`);
  phases.push([Number(at.toFixed(1)), phase, mib(phasePeak)]);
  phasePeak = process.memoryUsage.rss();
};
const { model, seconds } = await trainInThread(packed, {}, undefined, (message) => {
  endPhase((performance.now() - started) / 1000);
  phase = message;
});
endPhase((performance.now() - started) / 1000);
clearInterval(sampler);
const wall = (performance.now() - started) / 1000;
const used = process.cpuUsage(cpu);
delay.disable();
// maxRSS is the process's peak (KiB on Linux): the sales here, their copy in the thread, the training
const peakRss = process.resourceUsage().maxRSS * 1024;
const trees = 1 + (model.extraGbdts?.length ?? 0);
const treeCount = [model.gbdt, ...(model.extraGbdts ?? [])].reduce((n, g) => n + g.trees.length, 0);
const result = {
  count: COUNT,
  seed: SEED,
  sources: bySource,
  generate_seconds: Number(generateSeconds.toFixed(1)),
  train_seconds_wall: Number(wall.toFixed(1)),
  train_seconds_in_thread: Number(seconds.toFixed(1)),
  train_seconds_cpu: Number(((used.user + used.system) / 1e6).toFixed(1)),
  peak_rss_mib: mib(peakRss),
  event_loop_delay_p99_ms: Number((delay.percentile(99) / 1e6).toFixed(1)),
  event_loop_delay_max_ms: Number((delay.max / 1e6).toFixed(1)),
  boosted_models: trees,
  trees: treeCount,
  holdout: model.holdout,
  phases,
};
log(`trained ${COUNT} sales in ${result.train_seconds_wall} s wall (${result.train_seconds_cpu} s CPU, both threads): ${trees} boosted models, ${treeCount} trees`);
log(`time holdout: RMSLE ${model.holdout.rmsle.toFixed(4)} on the latest ${model.holdout.rows} sales`);
log(`peak RSS ${result.peak_rss_mib} MiB; this thread's event loop while training: p99 ${result.event_loop_delay_p99_ms} ms, max ${result.event_loop_delay_max_ms} ms`);
if (args.json) process.stdout.write(`${JSON.stringify(result)}\n`);
