/**
 * The launcher: runs every service (or those named in SERVICES) in one process, sharing one
 * database pool and queue connection set. The embedded PostgreSQL, when used, is its child.
 */
import { selectServices } from './all-services.js';
import { runServices } from './runner.js';

await runServices((config) => selectServices(config.SERVICES));
