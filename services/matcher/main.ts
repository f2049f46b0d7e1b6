import { runServices } from '../runner.js';
import { startMatcher } from './index.js';

await runServices({ matcher: startMatcher });
