/** Worker threads that run a TypeScript module, whatever loader (or none) the parent runs under. */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A worker running `module` (a .ts file's URL); its workerData as given, plus the module's URL. */
export function typescriptWorker(module: URL, options: WorkerOptions & { workerData?: Record<string, unknown> } = {}): Worker {
  return new Worker(new URL('./typescript-thread.mjs', import.meta.url), {
    ...options,
    workerData: { ...options.workerData, typescriptModule: module.href },
  });
}
