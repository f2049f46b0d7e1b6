/** `npm run model:eval -- …`: the model-eval command without starting a database. */
import { runModelEval } from './cli/model-eval-command.js';

process.exit(await runModelEval(process.argv.slice(2)));
