/**
 * Boosted models fitted in a second thread while the calling thread fits others, over the same
 * binned matrix in shared memory (no copy per thread). A fit is deterministic by its parameters
 * (seeded sampling), so a model grown in the helper is the model the caller would have grown.
 *
 * The caller stays synchronous: it posts a fit, goes on with its own work, and collects the result
 * with `Atomics.wait` and `receiveMessageOnPort` — training itself runs in a worker thread (or a
 * CLI's main thread), never on a thread that serves requests.
 */
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { typescriptWorker } from '../shared/typescript-thread.js';
import type { BinnedMatrix } from './gbdt.js';
import { GbdtModel } from './gbdt-model.js';
import { threadPriority } from '../shared/thread-priority.js';
import type { FeatureMatrix, FeatureSpec, GbdtParams, SerializedGbdt, TrainReport } from './gbdt-types.js';

/** A fit's inputs as the helper holds them (typed arrays in shared memory). */
export type FitData = {
  features: FeatureSpec[];
  matrix: BinnedMatrix;
  y: Float64Array;
  weights?: Float64Array;
  deltas?: Float64Array;
  valid?: { x: FeatureMatrix; y: Float64Array; weights?: Float64Array };
};

export type FitRequest = { type: 'fit'; id: number; data: number; params: Partial<GbdtParams> };
export type FitResult = { id: number; ok: true; model: SerializedGbdt; report: TrainReport } | { id: number; ok: false; error: string };

/** The trees of a refit that follows a fit: `fixedTrees`, else the fit's best iteration × `factor`. */
export function refitTrees(rule: { fixedTrees?: number; factor: number }, bestIteration: number): number {
  return rule.fixedTrees ?? Math.max(1, Math.round(bestIteration * rule.factor));
}

const sharedCopy = <T extends Float64Array | Uint8Array | Uint16Array>(a: T): T => {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const Ctor = a.constructor as new (buffer: SharedArrayBuffer) => T;
  const out = new Ctor(new SharedArrayBuffer(a.byteLength));
  out.set(a);
  return out;
};

function shareData(d: FitData): FitData {
  return {
    features: d.features,
    matrix: { ...d.matrix, binned: d.matrix.binned.map(sharedCopy) },
    y: sharedCopy(d.y),
    weights: d.weights && sharedCopy(d.weights),
    deltas: d.deltas && sharedCopy(d.deltas),
    valid: d.valid && { x: { rows: d.valid.x.rows, columns: d.valid.x.columns.map(sharedCopy) }, y: sharedCopy(d.valid.y), weights: d.valid.weights && sharedCopy(d.valid.weights) },
  };
}

/** [results posted, helper state (0 running, 1 gone)] */
const POSTED = 0;
const GONE = 1;

export class FitHelper {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal: Int32Array;
  private readonly done = new Map<number, FitResult>();
  private nextId = 1;
  private nextData = 1;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.signal = new Int32Array(new SharedArrayBuffer(8));
    this.worker = typescriptWorker(new URL('./gbdt-fit-thread.ts', import.meta.url), {
      workerData: { port: port2, signal: this.signal, nice: threadPriority() },
      transferList: [port2],
    });
    // the helper must not keep a finished CLI alive; its errors are reported through the signal
    this.worker.unref();
    this.worker.on('error', () => {});
    this.port = port1;
  }

  /** Hands the helper a fit's data, copied once into shared memory: its handle for `fit`, and the shared copy. */
  share(data: FitData): { id: number; data: FitData } {
    const id = this.nextData++;
    const shared = shareData(data);
    this.worker.postMessage({ type: 'data', id, data: shared });
    return { id, data: shared };
  }

  /** Lets the helper drop a data set no fit still queued needs. */
  drop(data: number): void {
    this.worker.postMessage({ type: 'drop', id: data });
  }

  /** Queues a fit; returns its id for `result`. */
  fit(data: number, params: Partial<GbdtParams>): number {
    const id = this.nextId++;
    const request: FitRequest = { type: 'fit', id, data, params };
    this.worker.postMessage(request);
    return id;
  }

  /** A queued fit's model and report, waiting for it if need be. */
  result(id: number): { model: GbdtModel; report: TrainReport } {
    for (;;) {
      const found = this.done.get(id);
      if (found) {
        this.done.delete(id);
        if (!found.ok) throw new Error(`a boosted model fitted in the helper thread failed: ${found.error}`);
        return { model: new GbdtModel(found.model), report: found.report };
      }
      const seen = Atomics.load(this.signal, POSTED);
      const message = receiveMessageOnPort(this.port);
      if (message) {
        const r = message.message as FitResult;
        this.done.set(r.id, r);
        continue;
      }
      if (Atomics.load(this.signal, GONE) === 1) throw new Error('the helper thread fitting boosted models stopped');
      Atomics.wait(this.signal, POSTED, seen, 1000);
    }
  }

  close(): void {
    void this.worker.terminate();
    this.port.close();
  }
}
