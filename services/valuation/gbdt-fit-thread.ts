/** The helper thread of gbdt-threads.ts: fits boosted models on data shared with the caller, in the order asked. */
import { workerData, type MessagePort } from 'node:worker_threads';
import { parentPort } from 'node:worker_threads';
import { trainGbdt } from './gbdt.js';
import { refitTrees, type FitData, type FitRequest, type FitResult } from './gbdt-threads.js';

const { port, signal } = workerData as { port: MessagePort; signal: Int32Array };
const data = new Map<number, FitData>();

function post(result: FitResult): void {
  port.postMessage(result);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

function fit(id: number, dataId: number, params: FitRequest['params'], withValid: boolean): FitResult & { best?: number } {
  try {
    const d = data.get(dataId);
    if (!d) throw new Error(`no data set ${dataId}`);
    const { model, report } = trainGbdt(d.features, d.matrix, d.y, params, withValid ? d.valid : undefined, d.weights, d.deltas);
    return { id, ok: true, model: model.toJSON(), report, best: report.bestIteration };
  } catch (err) {
    return { id, ok: false, error: err instanceof Error ? err.stack ?? err.message : String(err) };
  }
}

process.on('exit', () => {
  Atomics.store(signal, 1, 1);
  Atomics.notify(signal, 0);
});

parentPort!.on('message', (message: { type: 'data'; id: number; data: FitData } | { type: 'drop'; id: number } | FitRequest) => {
  if (message.type === 'data') data.set(message.id, message.data);
  else if (message.type === 'drop') data.delete(message.id);
  else {
    const { best, ...first } = fit(message.id, message.data, message.params, true);
    post(first);
    const then = message.then;
    if (!then) return;
    if (best === undefined) post({ id: then.id, ok: false, error: 'the fit it follows failed' });
    else post(fit(then.id, then.data, { ...then.params, trees: refitTrees(then, best) }, false));
  }
});
