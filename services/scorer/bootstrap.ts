/**
 * A fresh installation has nothing to value listings against. When there is no model yet, the
 * scorer seeds the sales history from the licensed Fast Iron files and the West Auctions lots under SHARED_DIR (read at run
 * time, never copied) if the history is empty, and queues the first training. Replicas agree
 * through the training job's fixed id; the import is an idempotent upsert.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../shared/context.js';
import { readSalePrices } from '../shared/datasets/fastiron.js';
import { countSoldResultsByOrigin } from '../shared/repositories/sold-results-repository.js';
import { latestModelVersion } from '../shared/repositories/model-versions-repository.js';
import { importFastIronSales, importWestAuctionSales } from './import-sales.js';

export async function bootstrapValuation(ctx: AppContext): Promise<'model-exists' | 'no-sales' | 'training-queued'> {
  const { db } = ctx.database;
  if (await latestModelVersion(db)) return 'model-exists';
  const counts = await countSoldResultsByOrigin(db);
  let sales = Object.values(counts).reduce((a, b) => a + b, 0);
  if (sales === 0) {
    const dir = path.join(ctx.config.SHARED_DIR, 'data', 'bulldozers');
    const train = path.join(dir, 'Train_first10931rows.csv.gz');
    const valid = path.join(dir, 'Valid.csv.gz');
    const solution = path.join(dir, 'ValidSolution_2012-01_to_02.csv');
    if (existsSync(train)) {
      ctx.logger.info({ dir }, 'no sales history yet: importing the Fast Iron sales');
      sales += (await importFastIronSales(db, train)).written;
      if (existsSync(valid) && existsSync(solution)) {
        sales += (await importFastIronSales(db, valid, await readSalePrices(solution))).written;
      }
    }
    const west = path.join(ctx.config.SHARED_DIR, 'data', 'westauction_lots', 'westauction_lots.csv.gz');
    if (existsSync(west)) {
      ctx.logger.info({ file: west }, 'importing the West Auctions machine lots');
      sales += (await importWestAuctionSales(db, west)).written;
    }
  }
  if (sales === 0) {
    ctx.logger.warn('no sales history and no model: listings stay unscored until sales are imported (npm run import-sales)');
    return 'no-sales';
  }
  await ctx.queues.enqueue('model', { action: 'train', reason: 'bootstrap', slot: 'bootstrap' });
  ctx.logger.info({ sales }, 'first model training queued');
  return 'training-queued';
}
