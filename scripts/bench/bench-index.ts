/**
 * `npm run bench:index -- [--snapshot .data/bench-api/listing-index.snapshot] [--requests 3000]
 *   [--rate 800] [--write-rate 200] [--only <part,…>] [--json]`
 *
 * The listing index alone, in this process, measured so that a shared, loaded machine moves the
 * figures little: CPU time (process.cpuUsage) rather than wall-clock latency, and heap and array
 * buffer bytes beside RSS.
 *
 * - **Memory**: the snapshot file an API process restores from (bench:api writes it) is restored
 *   here as a starting API does; the growth of RSS, of the V8 heap and of array buffers is
 *   printed (the last two do not depend on the allocator's or the young generation's mood).
 * - **CPU per request**, per shape (bench:api's near-a-ZIP shapes and two for scale): each request
 *   is one `page()` (the count is cached by the route for seconds: each filter's count is timed
 *   apart, CPU µs, the median filter and the worst). Quiet, then with
 *   writes interleaved as the API applies them: at `--rate` requests/s of simulated time, every
 *   250 ms (the sync's pace) the listings changed at `--write-rate`/s are upserted in one batch —
 *   half a new price, half a new deal score and fair value, over the ~20k lowest ids, as
 *   bench:api's writer does — and a merge runs when the index asks for one (its CPU reported
 *   apart: the API runs it in slices between requests).
 *
 * Talks to nothing: no database, no network.
 */
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readIndexSnapshot } from '../../services/listings/listing-index-snapshot-file.js';
import { ListingIndex, type IndexColumns, type IndexedListing, type IndexFilter, type IndexSort } from '../../services/listings/listing-index/index.js';
import { premiumOf } from '../../services/listings/listing-index/slot-store.js';
import { WEIGHT_CLASSES } from '../../services/shared/rules/freight-rates.js';
import { lookupZip } from '../../services/shared/geo/gazetteer.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type IndexBenchOptions = { requests: number; rate: number; writeRate: number; only?: string };

export type IndexShapeFigures = {
  shape: string;
  /** CPU µs per page, quiet and under writes; per-request wall µs percentiles under writes. */
  quiet_cpu_us: number;
  writes_cpu_us: number;
  writes_p50_us: number;
  writes_p95_us: number;
  writes_p99_us: number;
  /** Merges and batches of upserts during the run under writes: CPU µs per request. */
  upsert_cpu_us: number;
  merge_cpu_us: number;
  /** One count of the shape's filter (the route caches counts for seconds): CPU µs, median over its filters / the worst. */
  count_cpu_us: number;
  count_worst_cpu_us: number;
};

/** Buyers' ZIP codes, as bench:api sends them. */
const NEAR_ZIPS = ['50309', '75201', '95814', '30303', '80202', '17101', '58102', '83702'];
const PAGE_SIZE = 15;

type Request = { filter: IndexFilter; sort: IndexSort; offset: number };
type Shape = { name: string; requests: Request[] };

function shapes(): Shape[] {
  const points = NEAR_ZIPS.map((zip) => lookupZip(zip)!).map((at) => ({ lat: at.lat, lon: at.lon }));
  const pages = [1, 2, 3, 4, 5];
  const each = (f: (near: { lat: number; lon: number }, page: number, i: number) => Request) => points.flatMap((near, i) => pages.map((page) => f(near, page, i)));
  const offset = (page: number) => (page - 1) * PAGE_SIZE;
  return [
    { name: 'no filter (default sort)', requests: pages.map((page) => ({ filter: { groups: [] }, sort: 'deal_score_high', offset: offset(page) })) },
    { name: 'sort price_low', requests: pages.map((page) => ({ filter: { groups: [] }, sort: 'price_low', offset: offset(page) })) },
    { name: 'near, radius 300 mi', requests: each((near, page) => ({ filter: { groups: [], near: { ...near, radiusMiles: 300 } }, sort: 'deal_score_high', offset: offset(page) })) },
    { name: 'near, sort distance', requests: each((near, page) => ({ filter: { groups: [], near }, sort: 'distance', offset: offset(page) })) },
    { name: 'near, max delivered', requests: each((near, page, i) => ({ filter: { groups: [], near, maxDelivered: [15_000, 40_000, 80_000][i % 3] }, sort: 'deal_score_high', offset: offset(page) })) },
    { name: 'near, worth the trip', requests: each((near, page) => ({ filter: { groups: [], near, worthTheTrip: true }, sort: 'deal_score_high', offset: offset(page) })) },
    { name: 'near, sort delivered', requests: each((near, page) => ({ filter: { groups: [], near }, sort: 'delivered', offset: offset(page) })) },
  ];
}

/** A restored slot back as the listing it came from (what the writer changes and the sync upserts). */
function listingAt(cols: IndexColumns, k: number): IndexedListing {
  const place = cols.placeCode[k]!;
  const freight = cols.freight[k]!;
  const price = cols.price[k]!;
  const score = cols.score[k]!;
  const discount = cols.discount[k]!;
  const lexemes: string[] = [];
  const weights: number[] = [];
  for (let i = cols.termStart[k]!; i < cols.termStart[k + 1]!; i++) {
    lexemes.push(cols.termNames[cols.terms[i]! >>> 2]!);
    weights.push(cols.terms[i]! & 3);
  }
  return {
    id: cols.ids[k]!,
    dealScore: score === score ? score : null,
    priceUsd: price === price ? price : null,
    categoryId: cols.category[k]!,
    state: cols.stateCode[k]! >= 0 ? cols.stateNames[cols.stateCode[k]!]! : null,
    city: cols.cityCode[k]! >= 0 ? cols.cityNames[cols.cityCode[k]!]! : null,
    endAt: cols.endAt[k] === Infinity ? null : cols.endAt[k]!,
    lat: place >= 0 ? cols.placeLat[place]! : null,
    lon: place >= 0 ? cols.placeLon[place]! : null,
    weightClass: WEIGHT_CLASSES[freight & 3],
    buyersPremiumPct: premiumOf(freight),
    fairValue: price === price && discount > -0x80000000 ? price + discount : null,
    lexemes,
    weights,
  };
}

function gcFunction(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

export type IndexMemory = { listings: number; restore_seconds: number; rss_mib: number; heap_mib: number; array_buffers_mib: number; approx_mib: number };

/**
 * Restores the snapshot as a starting API does; what it added to the process (garbage collected,
 * the file's arrays released). bench:api's `index_rss_mib` is this measure's `rss_mib`.
 */
export async function restoreIndexMeasured(snapshot: string): Promise<{ index: ListingIndex; memory: IndexMemory } | null> {
  const gc = gcFunction();
  gc();
  gc();
  const before = process.memoryUsage();
  const started = performance.now();
  const read = await readIndexSnapshot(snapshot);
  if ('missing' in read) return null;
  const index = ListingIndex.fromColumns(read.columns);
  const restoreSeconds = (performance.now() - started) / 1000;
  read.columns = undefined as never;
  gc();
  gc();
  await new Promise((r) => setTimeout(r, 200));
  const after = process.memoryUsage();
  const mib = (b: number) => b / 2 ** 20;
  return {
    index,
    memory: {
      listings: index.size,
      restore_seconds: restoreSeconds,
      rss_mib: mib(after.rss - before.rss),
      heap_mib: mib(after.heapUsed - before.heapUsed),
      array_buffers_mib: mib(after.arrayBuffers - before.arrayBuffers),
      approx_mib: mib(index.stats().approxBytes),
    },
  };
}

/** The measured restore, and the writer's lots. */
export async function restoreMeasured(snapshot: string): Promise<{ index: ListingIndex; writable: IndexedListing[]; memory: IndexMemory } | null> {
  const restored = await restoreIndexMeasured(snapshot);
  if (!restored) return null;
  // The writer's lots (bench:api: the ~20k lowest ids of open lots ending after a day), from a
  // second read of the file once the index is measured.
  const again = await readIndexSnapshot(snapshot);
  if ('missing' in again) return null;
  const cols = again.columns;
  const now = Date.now();
  const candidates: number[] = [];
  for (let k = 0; k < cols.ids.length; k++) if (cols.endAt[k]! > now + 86_400_000) candidates.push(k);
  candidates.sort((a, b) => cols.ids[a]! - cols.ids[b]!);
  const writable = candidates.slice(0, 19_500).map((k) => listingAt(cols, k));
  return { ...restored, writable };
}

function percentile(sorted: Float64Array | number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * Per shape, CPU per page quiet and under interleaved writes (see the file's comment). The index
 * is changed by the run under writes (as the API's is): shapes later in the list see more changes.
 */
export async function cpuFigures(index: ListingIndex, writable: IndexedListing[], opts: IndexBenchOptions, log: (line: string) => void = () => {}): Promise<IndexShapeFigures[]> {
  const out: IndexShapeFigures[] = [];
  const now = Date.now();
  // As the API's sync runs it: merges in steps when the index asks (timed apart), not inside an upsert.
  index.backgroundMerge = true;
  let k = 0;
  /** The writer's next change, as bench:api's writer makes it (alternately a bid, a score). */
  const change = (): IndexedListing => {
    const lot = writable[(k * 7919) % writable.length]!;
    k++;
    const price = lot.priceUsd ?? 10_000;
    const changed =
      k % 2 === 0
        ? { ...lot, priceUsd: Math.max(500, Math.round(price * (0.8 + ((k * 37) % 40) / 100))) }
        : { ...lot, dealScore: (k * 53) % 101, fairValue: price * 1.2 };
    writable[((k - 1) * 7919) % writable.length] = changed;
    return changed;
  };
  for (const shape of shapes()) {
    if (opts.only && !opts.only.split(',').some((part) => shape.name.includes(part))) continue;
    const requests = shape.requests;
    const run = (r: Request) => index.page(r.filter, r.sort, r.offset, PAGE_SIZE, now);
    // Warm-up (compiled code, point distances and kept pages as a running API has them).
    for (let i = 0; i < Math.min(opts.requests, requests.length * 4); i++) run(requests[i % requests.length]!);
    let t = cpuUs();
    for (let i = 0; i < opts.requests; i++) run(requests[i % requests.length]!);
    const quiet = (cpuUs() - t) / opts.requests;
    // Under writes: a batch every 250 ms of simulated time.
    const perBatch = Math.max(1, Math.round(opts.rate / 4));
    const writesPerBatch = Math.round(opts.writeRate / 4);
    const times = new Float64Array(opts.requests);
    let pageCpu = 0;
    let upsertCpu = 0;
    let mergeCpu = 0;
    for (let i = 0; i < opts.requests; i++) {
      if (i % perBatch === 0 && writesPerBatch > 0) {
        t = cpuUs();
        index.upsertMany(Array.from({ length: writesPerBatch }, change));
        upsertCpu += cpuUs() - t;
        if (index.needsMerge) {
          t = cpuUs();
          await index.mergeDeltaInSteps(async () => {});
          mergeCpu += cpuUs() - t;
        }
      }
      const r = requests[i % requests.length]!;
      t = cpuUs();
      const w = performance.now();
      run(r);
      times[i] = (performance.now() - w) * 1000;
      pageCpu += cpuUs() - t;
    }
    times.sort();
    // Counts: each distinct filter of the shape once (3 runs, the median), CPU time.
    const filters = [...new Map(requests.map((r) => [JSON.stringify(r.filter), r.filter])).values()];
    const counts = filters
      .map((filter) => {
        const runs = [0, 1, 2].map(() => {
          const c0 = cpuUs();
          index.count(filter, now);
          return cpuUs() - c0;
        });
        return runs.sort((a, b) => a - b)[1]!;
      })
      .sort((a, b) => a - b);
    const figures: IndexShapeFigures = {
      shape: shape.name,
      quiet_cpu_us: quiet,
      writes_cpu_us: pageCpu / opts.requests,
      writes_p50_us: percentile(times, 50),
      writes_p95_us: percentile(times, 95),
      writes_p99_us: percentile(times, 99),
      upsert_cpu_us: upsertCpu / opts.requests,
      merge_cpu_us: mergeCpu / opts.requests,
      count_cpu_us: counts[Math.floor(counts.length / 2)]!,
      count_worst_cpu_us: counts[counts.length - 1]!,
    };
    out.push(figures);
    log(
      `${shape.name.padEnd(26)} CPU/page quiet ${quiet.toFixed(0).padStart(6)} µs, under writes ${figures.writes_cpu_us.toFixed(0).padStart(6)} µs ` +
        `(p50 ${figures.writes_p50_us.toFixed(0)} / p95 ${figures.writes_p95_us.toFixed(0)} / p99 ${figures.writes_p99_us.toFixed(0)} µs); ` +
        `upserts ${figures.upsert_cpu_us.toFixed(0)} µs/req, merges ${figures.merge_cpu_us.toFixed(0)} µs/req; ` +
        `a count ${figures.count_cpu_us.toFixed(0)} µs (worst filter ${figures.count_worst_cpu_us.toFixed(0)})`,
    );
  }
  return out;
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      snapshot: { type: 'string', default: path.join(ROOT, '.data/bench-api/listing-index.snapshot') },
      requests: { type: 'string', default: '3000' },
      rate: { type: 'string', default: '800' },
      'write-rate': { type: 'string', default: '200' },
      only: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const load = os.loadavg().map((l) => Number(l.toFixed(2)));
  log(`bench:index — ${new Date().toISOString()}, load ${load.join(' ')}, ${os.cpus().length} cores, node ${process.version}`);
  const restored = await restoreMeasured(path.resolve(args.snapshot));
  if (!restored) throw new Error(`no usable snapshot at ${args.snapshot} (run npm run bench:api once: it writes one)`);
  const { index, writable, memory } = restored;
  log(
    `memory: ${memory.listings.toLocaleString('en-US')} listings restored in ${memory.restore_seconds.toFixed(1)} s: RSS +${memory.rss_mib.toFixed(0)} MiB, ` +
      `heap +${memory.heap_mib.toFixed(1)} MiB, array buffers +${memory.array_buffers_mib.toFixed(1)} MiB (typed arrays ≈ ${memory.approx_mib.toFixed(0)} MiB by the index's own count)`,
  );
  const shapesOut = await cpuFigures(index, writable, { requests: Number(args.requests), rate: Number(args.rate), writeRate: Number(args['write-rate']), only: args.only }, log);
  if (args.json) process.stdout.write(`${JSON.stringify({ bench: 'index', date: new Date().toISOString(), load, memory, shapes: shapesOut })}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
