/** Every operator command. Capabilities add theirs here (outbox, crawl, sources, import-sales…). */
import { agreementCommand } from './agreement-command.js';
import { alertsCommand } from './alerts-command.js';
import type { CliCommand } from './command.js';
import { importSalesCommand } from './import-sales-command.js';
import { modelEvalCommand } from './model-eval-command.js';
import { modelTrainCommand } from './model-train-command.js';
import { outboxCommand } from './outbox-command.js';
import { outcomesCommand } from './outcomes-command.js';
import { placesCommand } from './places-command.js';
import { queuesCommand } from './queues-command.js';
import { salesCommand } from './sales-command.js';
import { crawlCommand } from './crawl-command.js';
import { sourcesCommand } from './sources-command.js';

export const COMMANDS: CliCommand[] = [queuesCommand, outboxCommand, crawlCommand, sourcesCommand, importSalesCommand, modelTrainCommand, modelEvalCommand, alertsCommand, outcomesCommand, agreementCommand, salesCommand, placesCommand];
