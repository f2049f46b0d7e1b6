import { runServices } from '../runner.js';
import { startScorer } from './index.js';

await runServices({ scorer: startScorer });
