/**
 * Trains a new fair-value model on all sales history (imported and crawled) and stores it as the
 * newest version. Training runs in a worker thread.
 */
import { NonRetryableError } from '../shared/errors.js';
import { typescriptWorker } from '../shared/typescript-thread.js';
import type { Db } from '../shared/database/db.js';
import type { Config } from '../shared/config.js';
import { insertModelVersion, type ModelVersionInfo } from '../shared/repositories/model-versions-repository.js';
import { listUnfinishedSalesImports } from '../shared/repositories/sales-imports-repository.js';
import { countSoldResultsByOrigin, countTrainingSales, trainingSalePages } from '../shared/repositories/sold-results-repository.js';
import { VALUATION_GBDT_PARAMS, type SerializedFairValueModel, type TrainOptions } from '../valuation/fair-value-model.js';
import type { TrainingSale } from '../valuation/features.js';
import { soldResultToSale } from './sales-history.js';
import { isPackedSales, packedTransferList, packSales, SalePacker, type PackedSales } from './packed-sales.js';

/** A training's options, and the nice value its threads run at (0: as the caller's). */
export type ThreadTrainOptions = TrainOptions & { nice?: number };

/** What the configuration sets for a training: its threads (MODEL_TRAIN_THREADS; unset, the valuation's default) and nice value. */
export function configuredTraining(config: Pick<Config, 'MODEL_TRAIN_THREADS' | 'MODEL_TRAIN_NICE'>): ThreadTrainOptions {
  return { ...(config.MODEL_TRAIN_THREADS === undefined ? {} : { threads: config.MODEL_TRAIN_THREADS }), nice: config.MODEL_TRAIN_NICE };
}

/** Fewer sales than this and there is nothing worth learning. */
export const MIN_TRAINING_SALES = 30;

/**
 * Trains in a worker thread. `signal` (the scorer shutting down) ends the thread at once and
 * rejects, so the job fails and is retried later instead of holding the shutdown for a training.
 */
export function trainInThread(
  /** The sales, packed (packed-sales.ts) or not: either way they cross to the thread packed, their buffers transferred. */
  sales: TrainingSale[] | PackedSales,
  optionsIn: ThreadTrainOptions = {},
  signal?: AbortSignal,
  onProgress?: (message: string) => void,
): Promise<{ model: SerializedFairValueModel; seconds: number; cpuSeconds?: number }> {
  const { nice, ...options } = optionsIn;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('training interrupted: the scorer is stopping'));
    const packed = isPackedSales(sales) ? sales : packSales(sales);
    const worker = typescriptWorker(new URL('./training-thread.ts', import.meta.url), { workerData: { options, nice: nice ?? 0 } });
    // a message, not workerData: the thread drops it once unpacked (workerData lives as long as the thread)
    worker.postMessage({ sales: packed }, packedTransferList(packed));
    const onAbort = () => {
      reject(new Error('training interrupted: the scorer is stopping'));
      void worker.terminate();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    type Message = { progress: string } | { ok: true; model: SerializedFairValueModel; seconds: number; cpuSeconds: number } | { ok: false; error: string };
    worker.on('message', (message: Message) => {
      if ('progress' in message) {
        onProgress?.(message.progress);
        return;
      }
      done();
      if (message.ok) resolve({ model: message.model, seconds: message.seconds, cpuSeconds: message.cpuSeconds });
      else reject(new Error(`training failed: ${message.error}`));
      void worker.terminate();
    });
    worker.once('error', (err) => {
      done();
      reject(err);
    });
    worker.once('exit', (code) => {
      done();
      if (code !== 0) reject(new Error(`training thread exited with code ${code}`));
    });
  });
}

/** A training asked for while a sales import is unfinished: it would learn from half a history. */
export class SalesImportUnfinishedError extends NonRetryableError {
  override name = 'SalesImportUnfinishedError';
}

/**
 * Every training sale, packed for the thread as it is read: a page of rows at a time, in one
 * repeatable-read transaction so the count and the pages agree while the crawler records more.
 */
async function packedHistory(db: Db): Promise<PackedSales> {
  return db.transaction(
    async (tx) => {
      const count = await countTrainingSales(tx);
      if (count < MIN_TRAINING_SALES) {
        throw new NonRetryableError(`only ${count} sales in history; import some first (npm run import-sales -- --format fastiron <file>)`);
      }
      const packer = new SalePacker(count);
      for await (const page of trainingSalePages(tx)) for (const row of page) packer.add(soldResultToSale(row));
      return packer.finish();
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

export async function trainAndStoreModel(
  db: Db,
  options: ThreadTrainOptions = {},
  signal?: AbortSignal,
  onProgress?: (message: string) => void,
  trainJob?: string,
): Promise<ModelVersionInfo> {
  const unfinished = await listUnfinishedSalesImports(db);
  if (unfinished.length > 0) {
    throw new SalesImportUnfinishedError(
      `a sales import is not complete (${unfinished.map((r) => `${r.file}: ${r.status}, ${r.rowsDone} rows in`).join('; ')}); ` +
        'the model trains once it is (it resumes when the scorer starts; see `npm run cli -- sales`)',
    );
  }
  const { model, seconds, cpuSeconds } = await trainInThread(await packedHistory(db), options, signal, onProgress);
  return insertModelVersion(db, {
    model,
    trainingRows: model.trainedRows,
    trainingOrigins: await countSoldResultsByOrigin(db),
    trainingSeconds: seconds,
    metrics: {
      holdoutRmsle: model.holdout.rmsle,
      holdoutRows: model.holdout.rows,
      trees: [model.gbdt, ...(model.extraGbdts ?? [])].reduce((n, g) => n + g.trees.length, 0),
      members: 1 + (model.extraGbdts?.length ?? 0),
      rangeLowLog: model.ranges.overall.low,
      rangeHighLog: model.ranges.overall.high,
      ...(cpuSeconds !== undefined ? { cpuSeconds } : {}),
      ...(model.priceIndex?.marketAsOf ? { marketAsOf: model.priceIndex.marketAsOf } : {}),
      ...(model.priceIndex ? { priceIndex: model.priceIndex.points.map((p) => `${p.at.slice(0, 10)} ${p.log}`).join(', ') } : {}),
    },
    params: { ...VALUATION_GBDT_PARAMS, ...options.params, coverage: model.coverage },
    trainJob,
  });
}
