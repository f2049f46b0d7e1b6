/** Runs one training off the main thread, so the API and workers sharing the process stay responsive. */
import { parentPort, workerData } from 'node:worker_threads';
import { trainFairValueModel, type TrainOptions } from '../valuation/fair-value-model.js';
import { withFinalValueCalibration } from './final-value-calibration.js';
import { unpackSales, type PackedSales } from './packed-sales.js';
import { lowerThreadPriority } from '../shared/thread-priority.js';

const { options, nice } = workerData as { options: TrainOptions; nice: number };
// a training yields the CPU to the threads answering requests and scoring (its helper thread takes the same)
if (nice > 0) lowerThreadPriority(nice);
// the sales come packed in the first message (packed-sales.ts), their buffers transferred
const message = await new Promise<{ sales: PackedSales }>((resolve) => parentPort!.once('message', resolve));
try {
  const cpu = process.cpuUsage();
  const sales = unpackSales(message.sales);
  delete (message as { sales?: PackedSales }).sales;
  const onProgress = (message: string) => parentPort!.postMessage({ progress: message });
  onProgress(`${sales.length} sales unpacked; today's dollars (price index)`);
  const { model, seconds } = trainFairValueModel(sales, { ...withFinalValueCalibration(options), onProgress });
  const used = process.cpuUsage(cpu);
  parentPort!.postMessage({ ok: true, model: model.toJSON(), seconds, cpuSeconds: (used.user + used.system) / 1e6 });
} catch (err) {
  parentPort!.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) });
}
