import { runServices } from '../runner.js';
import { startCrawler } from './index.js';

await runServices({ crawler: startCrawler });
