/** `npm run model:train`: train a fair-value model on all sales history now, store it, rescore every listing. */
import { enqueueRescoreAll } from '../../services/scorer/model-jobs.js';
import { trainAndStoreModel, configuredTraining } from '../../services/scorer/train-model.js';
import { NonRetryableError } from '../../services/shared/errors.js';
import { parseArgs, type CliCommand } from './command.js';

export const modelTrainCommand: CliCommand = {
  name: 'model:train',
  summary: 'Train the fair-value model on all sales history, store it as the newest version, queue a rescore of every listing',
  usage: 'model:train [--no-rescore]',
  async run(ctx, args) {
    const { flags } = parseArgs(args);
    try {
      const started = Date.now();
      const progress = (message: string) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0)} s] ${message}\n`);
      const info = await trainAndStoreModel(ctx.database.db, configuredTraining(ctx.config), undefined, progress);
      process.stdout.write(
        `model version ${info.version}: ${info.trainingRows} sales (${Object.entries(info.trainingOrigins).map(([o, n]) => `${o} ${n}`).join(', ')}), ` +
          `trained in ${info.trainingSeconds.toFixed(1)} s wall${typeof info.metrics.cpuSeconds === 'number' ? `, ${info.metrics.cpuSeconds.toFixed(1)} s CPU` : ''}, ${info.metrics.trees} trees, ` +
          `holdout RMSLE ${Number(info.metrics.holdoutRmsle).toFixed(4)} on the latest ${info.metrics.holdoutRows} sales\n`,
      );
      if (!flags['no-rescore']) {
        const count = await enqueueRescoreAll(ctx, info.version);
        process.stdout.write(`queued ${count} listings for rescoring\n`);
      }
      return 0;
    } catch (err) {
      if (err instanceof NonRetryableError) {
        process.stderr.write(`${err.message}\n`);
        return 1;
      }
      throw err;
    }
  },
};
