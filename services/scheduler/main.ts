import { runServices } from '../runner.js';
import { startScheduler } from './index.js';

await runServices({ scheduler: startScheduler });
