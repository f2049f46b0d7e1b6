/**
 * Comparable candidates from memory, for batch rescoring: the same pool, matched and ordered as
 * `findComparableCandidates` does in SQL (same type; same model family, or same model, or — for a
 * listing naming neither — same make, case and punctuation ignored; newest sale first, then
 * highest id; at most 400), without a query per listing. A rescore of a million listings would
 * otherwise spend most of its time in those queries.
 */
import type { Db } from '../shared/database/db.js';
import { listComparablePool, type SoldResultRow } from '../shared/repositories/sold-results-repository.js';
import type { ComparableCandidate } from '../valuation/comparables.js';
import { soldResultToCandidate } from './sales-history.js';

/** As the SQL's `regexp_replace(upper(coalesce(v, '')), '[^A-Z0-9]', '', 'g')`. */
export const normKey = (v: string | null | undefined): string => (v ? v.toUpperCase().replace(/[^A-Z0-9]/g, '') : '');

type Entry = { id: number; time: number; candidate: ComparableCandidate };
type TypeIndex = { byFamily: Map<string, Entry[]>; byModel: Map<string, Entry[]>; byMake: Map<string, Entry[]> };

const LIMIT = 400;
/** Distinct lookups remembered; past this the memo starts over (a rescore repeats a few thousand keys). */
const MEMO_MAX = 50_000;

/** Newest sale first, then the higher id: the SQL's ORDER BY sold_at DESC, id DESC. */
const newestFirst = (a: Entry, b: Entry) => b.time - a.time || b.id - a.id;

function push(map: Map<string, Entry[]>, key: string, entry: Entry): void {
  if (!key) return;
  const list = map.get(key);
  if (list) list.push(entry);
  else map.set(key, [entry]);
}

export class ComparablePool {
  private readonly types = new Map<number, TypeIndex>();
  private readonly memo = new Map<string, ComparableCandidate[]>();

  /** Any iterable of rows: a stream of them need not be held whole while the pool indexes them. */
  constructor(rows: Iterable<SoldResultRow>) {
    for (const row of rows) {
      if (!(row.price > 0)) continue;
      let index = this.types.get(row.categoryId);
      if (!index) {
        index = { byFamily: new Map(), byModel: new Map(), byMake: new Map() };
        this.types.set(row.categoryId, index);
      }
      const entry: Entry = { id: row.id, time: row.soldAt.getTime(), candidate: soldResultToCandidate(row) };
      push(index.byFamily, normKey(row.modelFamily), entry);
      push(index.byModel, normKey(row.model), entry);
      push(index.byMake, normKey(row.make), entry);
    }
    for (const index of this.types.values()) {
      for (const map of [index.byFamily, index.byModel, index.byMake]) for (const list of map.values()) list.sort(newestFirst);
    }
  }

  candidatesFor(target: { categoryId: number; model: string | null; modelFamily: string | null; make?: string | null }): ComparableCandidate[] {
    const model = normKey(target.model);
    const family = normKey(target.modelFamily);
    const make = !model && !family ? normKey(target.make) : '';
    if (!model && !family && !make) return [];
    const key = `${target.categoryId}|${family}|${model}|${make}`;
    const known = this.memo.get(key);
    if (known) return known;
    const index = this.types.get(target.categoryId);
    const lists = index
      ? [family ? index.byFamily.get(family) : undefined, model ? index.byModel.get(model) : undefined, make ? index.byMake.get(make) : undefined].filter(
          (l): l is Entry[] => l !== undefined,
        )
      : [];
    const result = mergeNewest(lists, LIMIT).map((e) => e.candidate);
    if (this.memo.size >= MEMO_MAX) this.memo.clear();
    this.memo.set(key, result);
    return result;
  }
}

/** The first `limit` entries of sorted lists merged in order, each sale once (it may match by family and by model). */
function mergeNewest(lists: Entry[][], limit: number): Entry[] {
  if (lists.length === 1) return lists[0]!.slice(0, limit);
  const positions = lists.map(() => 0);
  const seen = new Set<number>();
  const out: Entry[] = [];
  while (out.length < limit) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const e = lists[i]![positions[i]!];
      if (e && (best < 0 || newestFirst(e, lists[best]![positions[best]!]!) < 0)) best = i;
    }
    if (best < 0) break;
    const e = lists[best]![positions[best]!++]!;
    if (!seen.has(e.id)) {
      seen.add(e.id);
      out.push(e);
    }
  }
  return out;
}

/**
 * The pool of one scorer process, reloaded when older than `maxAgeMs` so sales recorded since are
 * picked up; concurrent batches share one load.
 */
export class ComparablePoolCache {
  private loaded: { at: number; pool: Promise<ComparablePool> } | null = null;

  constructor(
    private readonly db: Db,
    private readonly maxAgeMs = 5 * 60_000,
  ) {}

  get(now = Date.now()): Promise<ComparablePool> {
    if (!this.loaded || now - this.loaded.at > this.maxAgeMs) {
      const pool = listComparablePool(this.db).then((rows) => new ComparablePool(rows));
      this.loaded = { at: now, pool };
      // a failed load is not kept: the next batch tries again
      pool.catch(() => {
        if (this.loaded?.pool === pool) this.loaded = null;
      });
    }
    return this.loaded.pool;
  }
}
