// A worker thread does not inherit the parent's TypeScript loader in every runtime (vitest forks,
// plain node): register tsx here, then run the TypeScript module the thread was started for
// (typescript-thread.ts).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.typescriptModule);
