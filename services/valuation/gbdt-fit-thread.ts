/** The helper thread of gbdt-threads.ts: fits boosted models on data shared with the caller, in the order asked. */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { lowerThreadPriority } from '../shared/thread-priority.js';
import { trainGbdt } from './gbdt.js';
import { type FitData, type FitRequest, type FitResult } from './gbdt-threads.js';

const { port, signal, nice } = workerData as { port: MessagePort; signal: Int32Array; nice: number };
// as the thread that started it (a training thread yields to the threads answering requests)
if (nice > 0) lowerThreadPriority(nice);
const data = new Map<number, FitData>();

function post(result: FitResult): void {
  port.postMessage(result);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

function fit(request: FitRequest): FitResult {
  try {
    const d = data.get(request.data);
    if (!d) throw new Error(`no data set ${request.data}`);
    const { model, report } = trainGbdt(d.features, d.matrix, d.y, request.params, d.valid, d.weights, d.deltas);
    return { id: request.id, ok: true, model: model.toJSON(), report };
  } catch (err) {
    return { id: request.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
}

process.on('exit', () => {
  Atomics.store(signal, 1, 1);
  Atomics.notify(signal, 0);
});

parentPort!.on('message', (message: { type: 'data'; id: number; data: FitData } | { type: 'drop'; id: number } | FitRequest) => {
  if (message.type === 'data') data.set(message.id, message.data);
  else if (message.type === 'drop') data.delete(message.id);
  else post(fit(message));
});
