/**
 * The boosted members of a fair-value fit, grown two at a time when there are two threads: member
 * k's holdout fit and its refit on every sale are each fixed by member k's seed, so which thread
 * grows them does not change the model (the same JSON either way; tests/unit/valuation-threads).
 *
 * The order, for three members on two threads: the helper fits member 1 then refits it on every
 * sale; the caller fits members 0 and 2, calibrates the deal score on the holdout model, and refits
 * member 0, while the helper refits member 2 after its own. Each thread grows three models.
 */
import { availableParallelism } from 'node:os';
import { trainGbdt, type GbdtModel, type GbdtParams, type TrainReport } from './gbdt.js';
import { FitHelper, refitTrees, type FitData } from './gbdt-threads.js';

/** Below this many rows a fit takes seconds and a second thread's start would cost more than it saves. */
export const MIN_ROWS_FOR_THREADS = 4000;

/** Two threads where the machine has two cores (TRAINING_THREADS in the scorer's configuration). */
export const DEFAULT_TRAINING_THREADS = Math.min(2, availableParallelism());

type Fitted = { model: GbdtModel; report: TrainReport };

export type MemberPlan = {
  count: number;
  /** Threads to grow them in (1: this one alone). */
  threads: number;
  /** The holdout fits' data (with its early-stopping rows) and member k's parameters. */
  holdout: FitData;
  params: (k: number) => Partial<GbdtParams>;
  /** The refits on every sale: their data, and their trees (`fixedTrees`, else the holdout fit's best × `factor`). */
  refit?: { data: FitData; fixedTrees?: number; factor: number };
  progress: (message: string) => void;
};

export class MemberFits {
  private readonly helper: FitHelper | null;
  private holdoutId = 0;
  private refitId = 0;
  private readonly holdouts: Fitted[] = [];
  /** Per member: refitted here (null) or the helper's fit id. */
  private readonly refitOnHelper = new Map<number, number>();
  private plan: MemberPlan;

  constructor(plan: MemberPlan) {
    this.plan = plan;
    const parallel = plan.threads > 1 && plan.count > 1 && plan.holdout.matrix.rows >= MIN_ROWS_FOR_THREADS;
    this.helper = parallel ? new FitHelper() : null;
    if (this.helper) {
      // the caller fits from the shared copies too, so the matrices are held once
      plan.holdout = this.shared(plan.holdout, (id) => (this.holdoutId = id));
      if (plan.refit) plan.refit = { ...plan.refit, data: this.shared(plan.refit.data, (id) => (this.refitId = id)) };
    }
  }

  private shared(data: FitData, setId: (id: number) => void): FitData {
    const { id, data: shared } = this.helper!.share(data);
    setId(id);
    return shared;
  }

  private onHelper(k: number): boolean {
    return this.helper !== null && k % 2 === 1;
  }

  private refitParams(k: number, best: number): Partial<GbdtParams> {
    const rule = this.plan.refit!;
    return { ...this.plan.params(k), trees: refitTrees(rule, best), earlyStoppingRounds: Infinity };
  }

  /** Every member's holdout fit, in member order. */
  fitHoldouts(): Fitted[] {
    const { count, holdout, params, refit, progress } = this.plan;
    try {
      const pending = new Map<number, number>();
      for (let k = 0; k < count; k++) {
        if (!this.onHelper(k)) continue;
        const then = refit && { data: this.refitId, params: { ...params(k), earlyStoppingRounds: Infinity }, fixedTrees: refit.fixedTrees, factor: refit.factor };
        const ids = this.helper!.fit(this.holdoutId, params(k), then);
        pending.set(k, ids.id);
        if (ids.refitId !== undefined) this.refitOnHelper.set(k, ids.refitId);
      }
      const local = new Map<number, Fitted>();
      for (let k = 0; k < count; k++) {
        if (this.onHelper(k)) continue;
        progress(`holdout fit ${k + 1}/${count} on ${holdout.matrix.rows} sales, stopping on the latest ${holdout.valid?.y.length ?? 0}${this.helper ? ' (two threads)' : ''}`);
        local.set(k, trainGbdt(holdout.features, holdout.matrix, holdout.y, params(k), holdout.valid, holdout.weights, holdout.deltas));
      }
      for (let k = 0; k < count; k++) this.holdouts.push(local.get(k) ?? this.helper!.result(pending.get(k)!));
      if (this.helper && refit) {
        // the helper's refits follow its own fits; it takes every other one of this thread's too, from the last
        const mine = [...local.keys()];
        for (let j = mine.length - 1; j >= 1; j -= 2) {
          const k = mine[j]!;
          this.refitOnHelper.set(k, this.helper.fit(this.refitId, this.refitParams(k, this.holdouts[k]!.report.bestIteration)).id);
        }
      }
      if (this.helper) this.helper.drop(this.holdoutId);
      if (!refit) this.close();
      return this.holdouts;
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** Every member refitted on every sale, in member order. */
  fitRefits(): GbdtModel[] {
    const { count, refit, progress } = this.plan;
    if (!refit) throw new Error('no refit was planned');
    try {
      const out: GbdtModel[] = [];
      for (let k = 0; k < count; k++) {
        if (this.refitOnHelper.has(k)) continue;
        const params = this.refitParams(k, this.holdouts[k]!.report.bestIteration);
        progress(`refit ${k + 1}/${count} on all ${refit.data.matrix.rows} sales: ${params.trees} trees${this.helper ? ' (two threads)' : ''}`);
        out[k] = trainGbdt(refit.data.features, refit.data.matrix, refit.data.y, params, undefined, refit.data.weights, refit.data.deltas).model;
      }
      for (const [k, id] of this.refitOnHelper) out[k] = this.helper!.result(id).model;
      return out;
    } finally {
      this.close();
    }
  }

  close(): void {
    this.helper?.close();
  }
}
