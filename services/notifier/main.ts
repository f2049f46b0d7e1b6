import { runServices } from '../runner.js';
import { startNotifier } from './index.js';

await runServices({ notifier: startNotifier });
