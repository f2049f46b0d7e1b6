/**
 * Keeps a process's ListingIndex in step with PostgreSQL. Loads the listed listings under one
 * snapshot, then follows the change log (migration 0014).
 *
 * Bounded staleness, never a wait (`maxStalenessMs`, 250 ms in production): listings are written
 * by crawls and the scorer, never by the buyer's own request, and the contract is that a change
 * is listed within 2 s — not read-your-writes. So a request answers from the index as it is when
 * it synced within the last `maxStalenessMs` or a sync is already running; otherwise it starts one
 * and still answers at once, the sync finishing in the background. A request therefore never
 * queues behind a slow sync (a held change-log read, a loaded machine), and under any request
 * rate a process runs one sync at a time, at most one per `maxStalenessMs` (4/s). A timer
 * (`intervalMs`, 500 ms) syncs an idle process too and prunes the log. A change committed at t is
 * listed by t + max(maxStalenessMs, intervalMs) + two syncs' time (the one running at t, the next).
 * `maxStalenessMs: 0` keeps the strict rule (tests): a request waits for a sync that *started
 * after it arrived*, so it sees every change committed before it; concurrent requests share
 * syncs (one runs, at most one more is queued behind it). While a reload from PostgreSQL runs (a
 * truncate, a rescore of everything) requests answer from the index it will replace.
 *
 * Reloads (built aside, then swapped) when a sync cannot be applied change by change — a TRUNCATE,
 * more changes than `maxChangesPerSync` (a rescore of everything), or a process that has not synced
 * for longer than half the log's retention — and requests wait for it. When the index is only worn
 * (more dead slots than live ones; a quarter of the listings changed since the load, outside the
 * score-numbered slots), the new one is loaded in the background while the live one keeps
 * answering and syncing, and the first sync after it is ready installs it and catches it up.
 *
 * Start: with a snapshot file (listing-index-snapshot-file.ts), a process first restores the
 * index from it (linear work: seconds at a million listings instead of tens) and catches it up
 * from the change log like any sync — provided the file comes from this database and is recent
 * enough for the log to still hold every change since (half the log's retention). Only the
 * caught-up index is installed: until then the process is `loading` (health 503) and requests
 * wait, as for a load from PostgreSQL, since the file may be minutes older than what was
 * committed before the process started. Each process
 * rewrites the file after a load and then every `snapshotEveryMs` while it has changed, so a
 * restart, a deploy or a new replica on the same volume finds a recent one.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { DbOrTx, Sql } from '../shared/database/db.js';
import {
  databaseIdentity,
  findListedForIndex,
  formatSnapshot,
  parseSnapshot,
  snapshotIsPast,
  listingChangesSince,
  loadListedListings,
  pruneListingChanges,
  type Snapshot,
} from '../shared/repositories/listing-index-repository.js';
import { ListingIndex } from './listing-index/index.js';
import { readIndexSnapshot, writeIndexSnapshot } from './listing-index-snapshot-file.js';

export type ListingIndexSyncOptions = {
  client: Sql;
  db: DbOrTx;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** How often an idle process syncs (ms). */
  intervalMs?: number;
  /** A request answers at once from an index synced this recently or being synced (ms); 0 = it waits for a sync started after it. */
  maxStalenessMs?: number;
  /** Change-log rows older than this are pruned (s). */
  retentionSeconds?: number;
  /** How often this process prunes the change log (ms). */
  pruneEveryMs?: number;
  maxChangesPerSync?: number;
  /** Reload once more than this many listings (and a quarter of them) changed since the load. */
  minUnorderedForReload?: number;
  now?: () => number;
  /** A file to restore the index from at start and to keep a recent snapshot in (none: load from PostgreSQL). */
  snapshotPath?: string;
  /** How often a changed index is written to the snapshot file (ms). */
  snapshotEveryMs?: number;
};

type Loaded = { index: ListingIndex; snapshot: Snapshot; started: number };

/** What a load balancer, the health route and the metrics read. */
export type ListingIndexStatus = {
  state: 'loading' | 'ready';
  /** Where the index in use came from. */
  source: 'snapshot' | 'database' | null;
  /** From this sync's start to its first usable index (s). */
  readySeconds: number | null;
  /** The last load's duration (s): restoring a snapshot or reading PostgreSQL. */
  lastLoadSeconds: number | null;
  listings: number | null;
};

/** A process-wide event per index installed: `loaded` with { source, seconds, listings, reason } (for /metrics). */
export const listingIndexEvents = new EventEmitter();
export type ListingIndexLoadedEvent = { source: 'snapshot' | 'database'; seconds: number; listings: number; reason: string };

export class ListingIndexSync {
  private index: ListingIndex | null = null;
  private snapshot: Snapshot | null = null;
  private lastSyncAt = 0;
  private lastPruneAt = 0;
  /** The xmin observed at the previous prune: transactions below it had ended a minute ago. */
  private pruneBefore: string | null = null;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly intervalMs: number;
  private readonly maxStalenessMs: number;
  private readonly retentionMs: number;
  private readonly maxChanges: number;
  private readonly now: () => number;
  private readonly listeners: Array<(ids: readonly number[] | 'all') => void> = [];
  /** A reload running beside the live index, and its result until a sync installs it. */
  private aside: Promise<void> | null = null;
  private loadedAside: (Loaded & { reason: string }) | null = null;
  /** Bumped by every installed index (a background load started before one is dropped). */
  private generation = 0;
  private readonly startedAt: number;
  private readySeconds: number | null = null;
  private lastLoadSeconds: number | null = null;
  private source: 'snapshot' | 'database' | null = null;
  /** Changes applied to the live index (with the generation: whether the file already holds this content). */
  private applied = 0;
  private written: { key: string; syncedAt: number } | null = null;
  private lastWriteAt = 0;
  private writing: Promise<void> | null = null;
  private database: Promise<string> | null = null;

  constructor(private readonly opts: ListingIndexSyncOptions) {
    this.intervalMs = opts.intervalMs ?? 500;
    this.maxStalenessMs = opts.maxStalenessMs ?? 0;
    this.retentionMs = (opts.retentionSeconds ?? 600) * 1000;
    this.maxChanges = opts.maxChangesPerSync ?? 50_000;
    this.now = opts.now ?? Date.now;
    this.startedAt = this.now();
  }

  status(): ListingIndexStatus {
    return {
      state: this.index ? 'ready' : 'loading',
      source: this.source,
      readySeconds: this.readySeconds,
      lastLoadSeconds: this.lastLoadSeconds,
      listings: this.index?.size ?? null,
    };
  }

  /** Starts loading now and syncing in the background (requests need not wait for a timer). */
  start(): void {
    void this.sync().catch((err: unknown) => this.opts.logger?.error({ err }, 'listing index: first load failed'));
    this.timer = setInterval(() => {
      void this.sync().catch((err: unknown) => this.opts.logger?.warn({ err }, 'listing index: sync failed'));
    }, this.intervalMs);
    this.timer.unref();
  }

  /**
   * Calls `listener` with the ids of the listings each sync found changed (`'all'` on a reload),
   * before any request waiting for that sync goes on.
   */
  onChanges(listener: (ids: readonly number[] | 'all') => void): void {
    this.listeners.push(listener);
  }

  /**
   * The index a request answers from: at once when it synced within `maxStalenessMs` or a sync is
   * running; else a sync is started in the background and the request still does not wait. Waits
   * only while no index is loaded yet (start) or under the strict rule (`maxStalenessMs` 0).
   */
  async current(): Promise<ListingIndex> {
    if (!this.index || this.maxStalenessMs <= 0) return this.fresh();
    if (!this.running && this.now() - this.lastSyncAt > this.maxStalenessMs && !this.closed) {
      void this.sync().catch((err: unknown) => this.opts.logger?.warn({ err }, 'listing index: sync failed'));
    }
    return this.index;
  }

  /** The index, reflecting every listing change committed before this call. */
  async fresh(): Promise<ListingIndex> {
    await this.sync();
    if (!this.index) throw new Error('listing index not loaded');
    return this.index;
  }

  /** A sync that starts after this call (joins the queued one if there is one). */
  sync(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('listing index closed'));
    if (!this.running) {
      this.running = this.runSync().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    if (!this.queued) {
      this.queued = this.running
        .catch(() => {})
        .then(() => {
          this.queued = null;
          // Closed meanwhile (shutdown): the sync that ran is the last one, not a failure to log.
          return this.closed ? undefined : this.sync();
        });
    }
    return this.queued;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([this.running, this.queued, this.aside, this.writing]);
  }

  stats() {
    return this.index?.stats();
  }

  private async runSync(): Promise<void> {
    // A background reload finished: it takes over here, then syncs from its own snapshot.
    if (this.loadedAside) this.takeLoadedAside();
    const fellBehind = this.index !== null && this.now() - this.lastSyncAt > this.retentionMs / 2;
    // Restored and caught up: installed, this sync's work is done (as after a reload).
    if (!this.index && !this.snapshot && this.opts.snapshotPath && (await this.restore(this.opts.snapshotPath))) return;
    if (!this.index || !this.snapshot || fellBehind) return this.reload(fellBehind ? 'no sync for too long' : 'first load');
    const startedAt = this.now();
    const changes = await this.catchUp(this.index, this.snapshot, true);
    if (!changes) return this.reload('many changes or a truncate');
    if (changes.applied > 0) this.applied++;
    this.snapshot = changes.snapshot;
    this.lastSyncAt = startedAt;
    // Worn but still exact: rebuilt beside the live index, which keeps answering and syncing.
    const { dead, size: live, unordered } = this.index;
    if (dead > 10_000 && dead > live) this.reloadAside('more dead slots than live ones');
    else if (unordered > (this.opts.minUnorderedForReload ?? 50_000) && unordered > live / 4) {
      this.reloadAside('a quarter of the listings changed since the load');
    }
    if (startedAt - this.lastPruneAt >= (this.opts.pruneEveryMs ?? 60_000)) {
      // Rows of transactions that had ended by the previous prune (a minute ago, so every reader
      // syncing since has seen them), and old: the xmin seen now bounds the next prune.
      if (this.pruneBefore) await pruneListingChanges(this.opts.db, this.retentionMs / 1000, this.pruneBefore);
      this.lastPruneAt = startedAt;
      this.pruneBefore = changes.snapshot.xmin;
    }
    if (this.opts.snapshotPath && startedAt - this.lastWriteAt >= (this.opts.snapshotEveryMs ?? 120_000)) this.writeSnapshot(this.opts.snapshotPath);
  }

  /**
   * Applies to `index` the listing changes committed since `snapshot`: the snapshot now reached,
   * or null when they cannot be applied one by one (a truncate, more than `maxChangesPerSync`).
   * `live`: the index requests answer from, so the listeners (card cache) hear of the ids first.
   */
  private async catchUp(index: ListingIndex, snapshot: Snapshot, live: boolean): Promise<{ snapshot: Snapshot; applied: number } | null> {
    const { db } = this.opts;
    const changes = await listingChangesSince(db, snapshot, this.maxChanges);
    if (changes.ids === null) return null;
    if (changes.ids.length > 0) {
      if (live) for (const listener of this.listeners) listener(changes.ids);
      const listed = await findListedForIndex(db, changes.ids);
      const stillListed = new Set(listed.map((l) => l.id));
      for (const id of changes.ids) if (!stillListed.has(id)) index.remove(id);
      index.upsertMany(listed);
      if (index.needsMerge) this.mergeInBackground(index);
    }
    return { snapshot: changes.snapshot, applied: changes.ids.length };
  }

  /**
   * Restores the snapshot file's index, catches it up from the change log and only then installs
   * it (true): until then the process reports `loading` and requests wait, so a restart never
   * answers — nor reports ready — from a file older than what was committed before it started
   * (the file may be minutes old). Anything else (no file, another database, too old, a damaged
   * file, too many changes since) is logged and left to the load from PostgreSQL (false).
   */
  private async restore(file: string): Promise<boolean> {
    const started = this.now();
    const read = await readIndexSnapshot(file);
    const skip = (why: string) => {
      this.opts.logger?.info({ file, why }, 'listing index: snapshot not used, loading from PostgreSQL');
      return false;
    };
    if ('missing' in read) return skip(read.missing);
    const { columns, meta } = read;
    if (meta.database !== (await this.databaseId())) return skip('taken from another database');
    if (started - meta.syncedAt > this.retentionMs / 2) return skip('older than the change log can catch up');
    const snapshot = parseSnapshot(meta.pgSnapshot);
    if (!(await snapshotIsPast(this.opts.db, snapshot))) return skip('ahead of this database');
    let index: ListingIndex;
    try {
      index = ListingIndex.fromColumns(columns);
    } catch (err) {
      return skip((err as Error).message);
    }
    index.backgroundMerge = true;
    const caughtUpFrom = this.now();
    const caughtUp = await this.catchUp(index, snapshot, false);
    if (!caughtUp) return skip('more changes since than a sync applies (or a truncate)');
    this.install({ index, snapshot: caughtUp.snapshot, started: caughtUpFrom }, 'snapshot', 'snapshot', this.now() - started);
    // The file holds this content unless the catch-up changed it: rewritten once it changes (or ages).
    if (caughtUp.applied === 0) this.written = { key: `${this.generation}:${this.applied}`, syncedAt: meta.syncedAt };
    this.lastWriteAt = this.now();
    return true;
  }

  private databaseId(): Promise<string> {
    this.database ??= databaseIdentity(this.opts.client);
    return this.database;
  }

  /** Folds the delta into the orders a slice at a time between requests (see mergeDeltaInSteps). */
  private mergeInBackground(index: ListingIndex): void {
    void index.mergeDeltaInSteps(() => new Promise((resolve) => setImmediate(resolve))).catch((err: unknown) =>
      this.opts.logger?.warn({ err }, 'listing index: background merge failed'),
    );
  }

  /** Writes the live index to the snapshot file in the background, unless it is what was last written. */
  private writeSnapshot(file: string): void {
    if (this.writing || !this.index || !this.snapshot) return;
    const key = `${this.generation}:${this.applied}`;
    this.lastWriteAt = this.now();
    // Unchanged content is rewritten only to stay young enough for the change log to catch up.
    if (this.written && key === this.written.key && this.lastSyncAt - this.written.syncedAt < this.retentionMs / 4) return;
    const index = this.index;
    let meta: { pgSnapshot: string; syncedAt: number; key: string } | null = null;
    this.writing = index
      // Merged in slices first, so taking the columns is one copy, not a merge on a request's path.
      .mergeDeltaInSteps(() => new Promise((resolve) => setImmediate(resolve)))
      .then(() => {
        if (index !== this.index || !this.snapshot) throw new Error('index replaced before its snapshot was taken');
        // Taken as of now, between syncs: the columns and the snapshot text describe the same state.
        meta = { pgSnapshot: formatSnapshot(this.snapshot), syncedAt: this.lastSyncAt, key: `${this.generation}:${this.applied}` };
        return index.toColumnsInSteps(() => new Promise((resolve) => setImmediate(resolve)));
      })
      .then(async (columns) => ({ columns, database: await this.databaseId() }))
      .then(({ columns, database }) => writeIndexSnapshot(file, columns, { pgSnapshot: meta!.pgSnapshot, syncedAt: meta!.syncedAt, database }).then((bytes) => ({ bytes, columns })))
      .then(({ bytes, columns }) => {
        this.written = { key: meta!.key, syncedAt: meta!.syncedAt };
        this.opts.logger?.info({ file, MiB: Math.round(bytes / 2 ** 20), listings: columns.ids.length }, 'listing index: snapshot written');
      })
      .catch((err: unknown) => this.opts.logger?.warn({ err, file }, 'listing index: snapshot not written'))
      .finally(() => {
        this.writing = null;
      });
  }

  /** Loads and installs a new index before the sync (and the requests waiting on it) goes on. */
  private async reload(reason: string): Promise<void> {
    const started = this.now();
    this.install(await this.load(), reason, 'database', this.now() - started);
    if (this.opts.snapshotPath) this.writeSnapshot(this.opts.snapshotPath);
  }

  /** Loads a new index in the background; the next sync after it is ready installs it. */
  private reloadAside(reason: string): void {
    if (this.aside || this.loadedAside) return;
    const generation = this.generation;
    this.aside = this.load()
      .then((loaded) => {
        // A reload installed meanwhile (a truncate, say) is newer: this one is dropped.
        if (generation === this.generation && !this.closed) this.loadedAside = { ...loaded, reason };
      })
      .catch((err: unknown) => this.opts.logger?.warn({ err, reason }, 'listing index: background reload failed'))
      .finally(() => {
        this.aside = null;
      });
  }

  private takeLoadedAside(): void {
    const loaded = this.loadedAside!;
    this.loadedAside = null;
    // Too old to catch up from the change log: the sync reloads instead (fell behind).
    if (this.now() - loaded.started > this.retentionMs / 2) return;
    this.install(loaded, loaded.reason, 'database', this.now() - loaded.started);
  }

  private async load(): Promise<Loaded> {
    const started = this.now();
    const index = new ListingIndex();
    const snapshot = await loadListedListings(this.opts.client, (batch) => {
      for (const listing of batch) index.add(listing);
    });
    await index.finishLoadInSteps(() => new Promise((resolve) => setImmediate(resolve)));
    return { index, snapshot, started };
  }

  private install({ index, snapshot, started }: Loaded, reason: string, source: 'snapshot' | 'database', loadMs: number): void {
    this.generation++;
    index.backgroundMerge = true;
    this.index = index;
    this.snapshot = snapshot;
    this.lastSyncAt = started;
    this.source = source;
    this.lastLoadSeconds = loadMs / 1000;
    this.readySeconds ??= (this.now() - this.startedAt) / 1000;
    for (const listener of this.listeners) listener('all');
    const stats = index.stats();
    this.opts.logger?.info(
      { listings: stats.live, terms: stats.terms, ms: loadMs, approxMiB: Math.round(stats.approxBytes / 2 ** 20), reason, source },
      'listing index loaded',
    );
    const event: ListingIndexLoadedEvent = { source, seconds: loadMs / 1000, listings: stats.live, reason };
    listingIndexEvents.emit('loaded', event);
  }
}
