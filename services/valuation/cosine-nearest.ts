/**
 * The k lots nearest a query by idf-weighted cosine over word lists, within the query's market,
 * found without scoring every lot that shares a common word with it — the same lots, similarities
 * and order as scoring them all (title-words.ts and lot-neighbours.ts read their nearest lots here).
 *
 * - Lots with the same market and the same words (in the same order) are one document: the same
 *   norm, so the same similarity to any query. A document is scored once; its lots follow in
 *   index order, so the tie order (lower lot first) holds.
 * - Each posting list (market and word) holds its documents shortest first (by norm). The query's
 *   words are read rarest first. A document not met yet shares only words from the current one
 *   on: its dot product with the query is at most their summed weight L, and its norm is at least
 *   √L (Cauchy–Schwarz) and at least its own, so its similarity is at most L / (query norm ×
 *   max(√L, its norm)), which never rises along a list. Once that falls below the k-th best
 *   similarity so far (or the least asked), the rest of the list is not read, nor — when even its
 *   shortest document cannot reach it — the rest of the words: "hydraulic excavator", shared by
 *   ten thousand lots of a type, is read only as far as a near lot could still hide in it.
 */

export type CosineIndex = {
  /** Per document: its words, norm, and its lots (`lots[lotStart[d]..lotStart[d + 1])`, ascending). */
  docWords: (readonly number[])[];
  docNorms: Float64Array;
  lotStart: Int32Array;
  lots: Int32Array;
  /** `market|word` → documents with it, shortest first. */
  postings: Map<string, Int32Array>;
  /** Per document, the last query that met it. */
  stamp: Int32Array;
  queries: number;
};

/**
 * The index of `lots` (each with its market and word ids, weighed by `idf`). A lot's norm is
 * √(Σ idf² over its words, in its order); `zeroNorm` stands in for a norm of 0.
 */
export function cosineIndex(lots: readonly { type: string; words: readonly number[] }[], idf: readonly number[], zeroNorm = 0): CosineIndex {
  const docOf = new Map<string, number>();
  const docWords: (readonly number[])[] = [];
  const docTypes: string[] = [];
  const norms: number[] = [];
  const counts: number[] = [];
  const lotDoc = new Int32Array(lots.length);
  lots.forEach((lot, i) => {
    const key = `${lot.type}|${lot.words.join(',')}`;
    let d = docOf.get(key);
    if (d === undefined) {
      d = docWords.length;
      docOf.set(key, d);
      docWords.push(lot.words);
      docTypes.push(lot.type);
      let sq = 0;
      for (const w of lot.words) sq += idf[w]! ** 2;
      norms.push(Math.sqrt(sq) || zeroNorm);
      counts.push(0);
    }
    lotDoc[i] = d;
    counts[d]!++;
  });
  const lotStart = new Int32Array(docWords.length + 1);
  for (let d = 0; d < docWords.length; d++) lotStart[d + 1] = lotStart[d]! + counts[d]!;
  const fill = lotStart.slice(0, docWords.length);
  const lotList = new Int32Array(lots.length);
  for (let i = 0; i < lots.length; i++) lotList[fill[lotDoc[i]!]!++] = i;
  const docNorms = Float64Array.from(norms);
  const lists = new Map<string, number[]>();
  docWords.forEach((words, d) => {
    for (const w of words) {
      const key = `${docTypes[d]}|${w}`;
      let list = lists.get(key);
      if (!list) lists.set(key, (list = []));
      list.push(d);
    }
  });
  const postings = new Map<string, Int32Array>();
  for (const [key, list] of lists) postings.set(key, Int32Array.from(list.sort((a, b) => docNorms[a]! - docNorms[b]! || a - b)));
  return { docWords, docNorms, lotStart, lots: lotList, postings, stamp: new Int32Array(docWords.length), queries: 0 };
}

/**
 * The up to `k` lots of market `type` with the highest similarity ≥ `minSimilarity` to a query,
 * highest first (ties: lower lot first), as [lot, similarity]. `words[j]` (query order, each once)
 * has weight `weights[j]` (its idf²); `norm` is the query's norm (words the index lacks may count
 * in it). `skip(lot)` leaves a lot out.
 */
export function nearestByCosine(
  index: CosineIndex,
  type: string,
  words: readonly number[],
  weights: readonly number[],
  norm: number,
  k: number,
  minSimilarity: number,
  skip?: (lot: number) => boolean,
): [number, number][] {
  const stamp = ++index.queries;
  const { docNorms, docWords, lotStart, lots } = index;
  const position = new Map<number, number>();
  words.forEach((w, j) => position.set(w, j));
  const postings = words.map((w) => index.postings.get(`${type}|${w}`));
  // rarest (heaviest) first; the weight left from each step on bounds what an unseen document can reach
  const order = words.map((_, j) => j).sort((a, b) => weights[b]! - weights[a]! || a - b);
  const left = new Float64Array(order.length + 1);
  const shortest = new Float64Array(order.length + 1).fill(Infinity);
  for (let s = order.length - 1; s >= 0; s--) {
    left[s] = left[s + 1]! + weights[order[s]!]!;
    const list = postings[order[s]!];
    shortest[s] = Math.min(shortest[s + 1]!, list && list.length > 0 ? docNorms[list[0]!]! : Infinity);
  }
  // the most a document of this norm or longer can reach sharing only words from step s on
  const reach = (s: number, docNorm: number) => (left[s]! / (norm * Math.max(Math.sqrt(left[s]!), docNorm))) * (1 + 1e-9);
  // the k nearest lots so far, nearest first (ties: lower lot first)
  const topLots: number[] = [];
  const topSims: number[] = [];
  let floor = minSimilarity;
  const matched: number[] = [];
  for (let s = 0; s < order.length; s++) {
    if (shortest[s] === Infinity || reach(s, shortest[s]!) < floor) break;
    const list = postings[order[s]!];
    if (!list) continue;
    for (let p = 0; p < list.length; p++) {
      const d = list[p]!;
      // documents further on are longer: none of them can reach the floor either
      if (reach(s, docNorms[d]!) < floor) break;
      if (index.stamp[d] === stamp) continue;
      index.stamp[d] = stamp;
      // the dot product summed in query order, as scoring word by word would
      matched.length = 0;
      for (const w of docWords[d]!) {
        const j = position.get(w);
        if (j === undefined) continue;
        let at = matched.length;
        matched.push(j);
        while (at > 0 && matched[at - 1]! > j) {
          matched[at] = matched[at - 1]!;
          at--;
        }
        matched[at] = j;
      }
      let dot = 0;
      for (let m = 0; m < matched.length; m++) dot += weights[matched[m]!]!;
      const sim = dot / (norm * docNorms[d]!);
      if (!(sim >= floor)) continue;
      for (let q = lotStart[d]!; q < lotStart[d + 1]!; q++) {
        const lot = lots[q]!;
        if (skip?.(lot)) continue;
        // insert (sim, lot) in order; a full list drops its last
        const full = topLots.length >= k;
        const last = topLots.length - 1;
        if (full && !(sim > topSims[last]! || (sim === topSims[last]! && lot < topLots[last]!))) break;
        let at = full ? last : topLots.length;
        while (at > 0 && (topSims[at - 1]! < sim || (topSims[at - 1] === sim && topLots[at - 1]! > lot))) {
          topSims[at] = topSims[at - 1]!;
          topLots[at] = topLots[at - 1]!;
          at--;
        }
        topSims[at] = sim;
        topLots[at] = lot;
        if (topLots.length >= k) floor = Math.max(topSims[k - 1]!, minSimilarity);
      }
    }
  }
  return topLots.map((lot, i) => [lot, topSims[i]!]);
}
