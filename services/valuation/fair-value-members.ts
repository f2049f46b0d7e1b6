/**
 * The boosted members of a fair-value fit, grown two at a time when there are two threads: member
 * k's holdout fit and its refit on every sale are each fixed by member k's seed, so which thread
 * grows them does not change the model (the same JSON either way; tests/unit/valuation-threads).
 *
 * The order, for three members on two threads: the helper starts fitting members 1 and 2 as soon as
 * the holdout fits' matrix exists; meanwhile this thread encodes every sale for the refits, fits
 * member 0 and, once the three are in, calibrates the deal score on the holdout model and refits
 * member 0 while the helper refits 1 and 2. Each thread grows about as much.
 */
import { availableParallelism } from 'node:os';
import { trainGbdt, type GbdtModel, type GbdtParams, type TrainReport } from './gbdt.js';
import { FitHelper, refitTrees, type FitData } from './gbdt-threads.js';

/** Below this many rows a fit takes seconds and a second thread's start would cost more than it saves. */
export const MIN_ROWS_FOR_THREADS = 4000;

/** Two threads where the machine has two cores (MODEL_TRAIN_THREADS in the scorer's configuration). */
export const DEFAULT_TRAINING_THREADS = Math.min(2, availableParallelism());

type Fitted = { model: GbdtModel; report: TrainReport };

export type MemberPlan = {
  count: number;
  /** Threads to grow them in (1: this one alone). */
  threads: number;
  /** The holdout fits' data (with its early-stopping rows) and member k's parameters. */
  holdout: FitData;
  params: (k: number) => Partial<GbdtParams>;
  progress: (message: string) => void;
};

/** The refits on every sale: their data, and their trees (`fixedTrees`, else the holdout fit's best × `factor`). */
export type RefitPlan = { data: FitData; fixedTrees?: number; factor: number };

export class MemberFits {
  private readonly helper: FitHelper | null;
  private readonly plan: MemberPlan;
  private refit: RefitPlan | undefined;
  /** Members fitted and refitted on this thread (0 ≤ k < local); the helper grows the others. */
  private readonly local: number;
  private readonly pending = new Map<number, number>();
  private readonly holdouts: Fitted[] = [];
  private readonly refitOnHelper = new Map<number, number>();

  /** Starts the helper's holdout fits at once (with two threads and enough rows). */
  constructor(plan: MemberPlan) {
    const parallel = plan.threads > 1 && plan.count > 1 && plan.holdout.matrix.rows >= MIN_ROWS_FOR_THREADS;
    this.helper = parallel ? new FitHelper() : null;
    this.local = this.helper ? Math.ceil(plan.count / 3) : plan.count;
    this.plan = plan;
    if (!this.helper) return;
    try {
      // this thread fits from the shared copy too, so the matrix is held once
      const { id, data } = this.helper.share(plan.holdout);
      this.plan = { ...plan, holdout: data };
      for (let k = this.local; k < plan.count; k++) this.pending.set(k, this.helper.fit(id, plan.params(k)));
      this.helper.drop(id);
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** This thread's work while the helper fits (the refits' encoding); the helper stops if it fails. */
  meanwhile<T>(work: () => T): T {
    try {
      return work();
    } catch (err) {
      this.close();
      throw err;
    }
  }

  private refitParams(k: number, best: number): Partial<GbdtParams> {
    return { ...this.plan.params(k), trees: refitTrees(this.refit!, best), earlyStoppingRounds: Infinity };
  }

  private get note(): string {
    return this.helper ? ` (and ${this.plan.count - this.local} in a second thread)` : '';
  }

  /**
   * Every member's holdout fit, in member order. With `refit`, the helper's refits are queued as
   * soon as its holdout fits are in (fitRefits collects them).
   */
  fitHoldouts(refit?: RefitPlan): Fitted[] {
    const { count, holdout, params, progress } = this.plan;
    try {
      for (let k = 0; k < this.local; k++) {
        progress(`holdout fit ${k + 1}/${count} on ${holdout.matrix.rows} sales, stopping on the latest ${holdout.valid?.y.length ?? 0}${this.note}`);
        this.holdouts.push(trainGbdt(holdout.features, holdout.matrix, holdout.y, params(k), holdout.valid, holdout.weights, holdout.deltas));
      }
      if (refit && this.helper) {
        const { id, data } = this.helper.share(refit.data);
        this.refit = { ...refit, data };
        for (let k = this.local; k < count; k++) {
          this.holdouts.push(this.helper.result(this.pending.get(k)!));
          this.refitOnHelper.set(k, this.helper.fit(id, this.refitParams(k, this.holdouts[k]!.report.bestIteration)));
        }
        this.helper.drop(id);
      } else {
        this.refit = refit;
        for (let k = this.local; k < count; k++) this.holdouts.push(this.helper!.result(this.pending.get(k)!));
      }
      if (!refit) this.close();
      return this.holdouts;
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** Every member refitted on every sale, in member order. */
  fitRefits(): GbdtModel[] {
    const { count, progress } = this.plan;
    const refit = this.refit;
    if (!refit) throw new Error('no refit was planned');
    try {
      const out: GbdtModel[] = [];
      for (let k = 0; k < this.local; k++) {
        const params = this.refitParams(k, this.holdouts[k]!.report.bestIteration);
        progress(`refit ${k + 1}/${count} on all ${refit.data.matrix.rows} sales: ${params.trees} trees${this.note}`);
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
