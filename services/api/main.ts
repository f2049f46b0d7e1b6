import { runServices } from '../runner.js';
import { startApi } from './index.js';

await runServices({ api: startApi });
