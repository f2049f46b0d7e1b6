/**
 * The compose smoke's checks on a running stack (scripts/compose-smoke.ts runs them in order).
 * Each returns the line it prints on success and throws with the reason otherwise. They talk to
 * the API on its published 127.0.0.1 port, to PostgreSQL through psql in its container, and to the
 * demo site's loopback-only control routes from inside the demo site's container.
 */
import { randomBytes } from 'node:crypto';
import { CATEGORIES } from '../../services/shared/categories.js';
import type { RequestSummary } from '../demo-site/request-log.js';
import { politenessVerdict, queuedRunId, rowsKept } from './smoke-rules.js';
import { tail, waitUntil, type ComposeStack, type ContainerState } from './stack.js';

export const SERVICES = ['postgres', 'redis', 'demo-site', 'api', 'crawler', 'scorer', 'matcher', 'notifier', 'scheduler'];
const PASSWORD = 'Excavator-Harbor-73';

export class SmokeChecks {
  private email = '';
  private lastRunId = 0;

  constructor(
    private readonly stack: ComposeStack,
    private readonly apiUrl: string,
  ) {}

  private async api(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await fetch(`${this.apiUrl}${path}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = { text: text.slice(0, 300) };
    }
    return { status: res.status, json };
  }

  /** The demo site's control routes answer loopback only: asked from inside its own container. */
  async site<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const script = `fetch(${JSON.stringify(`http://127.0.0.1:8090${path}`)},{method:${JSON.stringify(method)},headers:{'content-type':'application/json'}${body ? `,body:${JSON.stringify(JSON.stringify(body))}` : ''}}).then(async r=>{const t=await r.text();process.stdout.write(t);process.exit(r.ok?0:1)},e=>{console.error(e.message);process.exit(2)})`;
    const res = await this.stack.exec('demo-site', ['node', '-e', script]);
    if (res.code !== 0) throw new Error(`demo site ${method} ${path}: ${tail(res, 3)}`);
    return JSON.parse(res.stdout) as T;
  }

  /** Every container of the stack healthy (a replica count per service when asked). */
  async waitHealthy(timeoutMs: number, replicas: Record<string, number> = {}, services = SERVICES): Promise<ContainerState[]> {
    return waitUntil('every container healthy', timeoutMs, async () => {
      const all = (await this.stack.containers()).filter((c) => services.includes(c.service));
      const down = all.filter((c) => c.state === 'exited' || c.state === 'dead');
      if (down.length > 0) {
        const logs = await this.stack.compose(['logs', '--no-color', '--tail', '15', down[0]!.service]);
        throw new Error(`${down.map((c) => c.name).join(', ')} ${down[0]!.state}:\n${tail(logs, 15)}`);
      }
      const missing = services.filter((s) => all.filter((c) => c.service === s).length < (replicas[s] ?? 1));
      const unhealthy = all.filter((c) => c.health !== 'healthy');
      if (missing.length === 0 && unhealthy.length === 0) return all;
      throw new Error(`waiting for ${[...missing.map((s) => `${s} (no container)`), ...unhealthy.map((c) => `${c.name} (${c.health ?? c.state})`)].join(', ')}`);
    });
  }

  private async finishedRun(runId: number | null, timeoutMs: number) {
    const where = runId === null ? "s.name = 'demo'" : `r.id = ${runId}`;
    const row = await waitUntil(`crawl run ${runId ?? '(first)'} finished`, timeoutMs, async () => {
      const [r] = await this.stack.sql(
        `SELECT r.id, r.state, coalesce(r.outcome, ''), r.pages, r.lots_new, r.lots_updated + r.lots_unchanged, r.errors, round(extract(epoch FROM coalesce(r.finished_at, now()) - r.started_at)::numeric, 1)
           FROM crawl_runs r JOIN sources s ON s.id = r.source_id WHERE ${where} ORDER BY r.id LIMIT 1`,
      );
      return r && r[1] === 'finished' ? r : undefined;
    });
    const [id, , outcome, pages, lotsNew, lotsSeen, errors, seconds] = row;
    if (outcome !== 'ok') throw new Error(`crawl run #${id} ended ${outcome} (${errors} errors)`);
    this.lastRunId = Number(id);
    return { id: Number(id), pages: Number(pages), lotsNew: Number(lotsNew), lotsSeen: Number(lotsSeen), seconds: Number(seconds) };
  }

  /** Queues a crawl of the demo site for the running crawlers (the operator's CLI, in a crawler container). */
  private async requestCrawl(): Promise<number> {
    const res = await this.stack.exec('crawler', ['node', '--import', 'tsx', 'scripts/cli.ts', 'crawl', '--source', 'demo']);
    if (res.code !== 0) throw new Error(`cli crawl: ${tail(res, 4)}`);
    return queuedRunId(res.stdout);
  }

  async crawlStoresListings(): Promise<string> {
    // The crawler crawls a source never crawled before as it starts (CRAWL_SOURCES=demo).
    const run = await this.finishedRun(null, 10 * 60_000); // ~120 pages at one per 2 s
    const listings = await this.stack.count("SELECT count(*) FROM listings l JOIN sources s ON s.id = l.source_id WHERE s.name = 'demo'");
    if (run.lotsNew === 0 || listings === 0) throw new Error(`run #${run.id} stored ${run.lotsNew} lots; ${listings} listings in the database`);
    return `the crawler's first run #${run.id} of http://demo-site:8090 read ${run.pages} pages in ${run.seconds} s and stored ${run.lotsNew} lots; ${listings} demo listings in PostgreSQL`;
  }

  async apiAnswers(): Promise<string> {
    const health = await this.api('GET', '/api/health/');
    if (health.status !== 200 || health.json.status !== 'ok') throw new Error(`/api/health/ answered ${health.status} ${JSON.stringify(health.json)}`);
    // The API's listing index follows the database within a second or so: wait for the crawl's lots.
    const list = await waitUntil('the list to show the crawled lots', 60_000, async () => {
      const res = await this.api('GET', '/api/auctions/list/?page_size=5');
      if (res.status !== 200) throw new Error(`/api/auctions/list/ answered ${res.status} ${JSON.stringify(res.json).slice(0, 200)}`);
      const data = res.json.data as { items: Array<{ id: number; slug: string }>; pagination: { total_count: number } };
      return data.items.length > 0 ? data : undefined;
    }, 1000);
    const first = list.items[0]!;
    const detail = await this.api('GET', `/api/auctions/detail/${first.id}/`);
    const { title, slug } = (detail.json.data ?? {}) as { title?: string; slug?: string };
    if (detail.status !== 200 || slug !== first.slug) throw new Error(`/api/auctions/detail/${first.id}/ answered ${detail.status} (${slug ?? 'no slug'}, the list's card: ${first.slug})`);
    // The help page every deal page links to, from the image's docs/.
    const help = await fetch(`${this.apiUrl}/docs/deal-score.md`, { signal: AbortSignal.timeout(30_000) });
    if (help.status !== 200) throw new Error(`/docs/deal-score.md answered ${help.status}`);
    return `/api/health/ 200 ok; /api/auctions/list/ 200 with ${list.pagination.total_count} open listings; /api/auctions/detail/${first.id}/ 200 "${title}"; /docs/deal-score.md 200`;
  }

  async scorerTrainsAndScores(): Promise<string> {
    const done = await waitUntil('sales imported, a model trained and every listing scored by it', 15 * 60_000, async () => {
      const imports = await this.stack.sql("SELECT origin, status, written FROM sales_imports ORDER BY origin");
      const [model] = await this.stack.sql('SELECT version, training_rows, round(training_seconds::numeric) FROM model_versions ORDER BY version DESC LIMIT 1');
      if (imports.length === 0 || imports.some(([, status]) => status !== 'complete') || !model) throw new Error(`imports ${JSON.stringify(imports)}, model ${model ? `v${model[0]}` : 'none'}`);
      const [[worth, onNewest, valued]] = (await this.stack.sql(
        `SELECT count(*), count(*) FILTER (WHERE model_version = ${Number(model[0])}), count(*) FILTER (WHERE model_version = ${Number(model[0])} AND fair_value IS NOT NULL)
           FROM listings WHERE status IN ('open', 'closed', 'sold')`,
      )) as [[string, string, string]];
      if (Number(worth) === 0 || worth !== onNewest) throw new Error(`${onNewest} of ${worth} listings scored by model v${model[0]}`);
      return { imports, model, worth: Number(worth), valued: Number(valued) };
    }, 5000);
    const sales = await this.stack.count("SELECT count(*) FROM sold_results WHERE origin LIKE 'import:%'");
    const [version, rows, seconds] = done.model;
    return `imported ${done.imports.map(([origin, , written]) => `${origin} ${Number(written).toLocaleString('en-US')}`).join(', ')} (${sales.toLocaleString('en-US')} sales); model v${version} trained on ${Number(rows).toLocaleString('en-US')} sales in ${seconds} s; all ${done.worth} listings scored by it, ${done.valued} with a fair value`;
  }

  async instantAlertEmail(): Promise<string> {
    const state = await this.site<{ walkthrough: { lot_id: string; title: string; category_id: number; state: string | null; price: number; hours_left: number } | null }>('GET', '/_control/state');
    const pick = state.walkthrough;
    if (!pick) throw new Error('the demo site has no walkthrough lot left to publish');
    const equipmentType = CATEGORIES.find((c) => c.id === pick.category_id)?.name;
    if (!equipmentType) throw new Error(`unknown category ${pick.category_id}`);
    this.email = `smoke-${Array.from(randomBytes(8), (b) => String.fromCharCode(97 + (b % 26))).join('')}@example.com`;
    const registered = await this.api('POST', '/api/auth/register/', { email: this.email, password1: PASSWORD, password2: PASSWORD, first_name: 'Smoke', last_name: 'Test', terms_accepted: true });
    if (registered.status !== 201) throw new Error(`register answered ${registered.status} ${JSON.stringify(registered.json).slice(0, 300)}`);
    const token = registered.json.access_token as string;
    const alert = await this.api('POST', '/api/alerts/', { equipment_type: equipmentType, ...(pick.state ? { state: pick.state } : {}), delivery_method: 'email', frequency: 'instant' }, token);
    if (alert.status !== 201) throw new Error(`creating the alert answered ${alert.status} ${JSON.stringify(alert.json).slice(0, 300)}`);
    const published = Date.now();
    await this.site('POST', '/_control/publish', { lot_id: pick.lot_id, price: pick.price, hours_left: pick.hours_left });
    const runId = await this.requestCrawl();
    await this.finishedRun(runId, 10 * 60_000);
    const mail = await waitUntil('the alert e-mail in the outbox', 5 * 60_000, async () => {
      const rows = await this.stack.sql(`SELECT id, status, coalesce(transport, ''), subject FROM outbox_messages WHERE lower(recipient) = lower('${this.email}') AND kind = 'alert' ORDER BY id`);
      return rows.length > 0 && rows.every(([, status]) => status === 'sent' || status === 'failed') ? rows : undefined;
    });
    const [id, status, transport, subject] = mail[0]!;
    if (status !== 'sent') throw new Error(`message #${id} ${status}`);
    if (!subject!.includes(pick.title)) throw new Error(`message #${id} is about "${subject}", not the published ${pick.title}`);
    return `${equipmentType}${pick.state ? ` in ${pick.state}` : ''} alert; lot ${pick.lot_id} published at $${pick.price.toLocaleString('en-US')}; ${mail.length} e-mail ${status} via ${transport} ${Math.round((Date.now() - published) / 1000)} s later: "${subject}"`;
  }

  private async rowCounts(): Promise<Record<string, number>> {
    const tables = (await this.stack.sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1")).map(([t]) => t!);
    const rows = await this.stack.sql(tables.map((t) => `SELECT '${t}', count(*) FROM "${t}"`).join(' UNION ALL '));
    return Object.fromEntries(rows.map(([t, n]) => [t!, Number(n)]));
  }

  async restartKeepsRows(healthTimeoutMs: number): Promise<string> {
    const before = await this.rowCounts();
    const started = Date.now();
    await this.stack.composeOrThrow(['restart', '-t', '30']);
    await this.waitHealthy(healthTimeoutMs);
    const healthyAfter = Math.round((Date.now() - started) / 1000);
    const after = await this.rowCounts();
    const kept = rowsKept(before, after);
    if (!kept.ok) throw new Error(kept.detail);
    const login = await this.api('POST', '/api/auth/login/', { email: this.email, password: PASSWORD });
    if (this.email && login.status !== 200) throw new Error(`the smoke's user cannot log in after the restart: ${login.status}`);
    return `${kept.detail}; every container healthy again ${healthyAfter} s after \`restart\`${this.email ? '; the alert user still logs in' : ''}`;
  }

  async scaledCrawlSharesLimits(healthTimeoutMs: number): Promise<string> {
    await this.stack.composeOrThrow(['up', '-d', '--no-recreate', '--scale', 'crawler=3']);
    const containers = await this.waitHealthy(healthTimeoutMs, { crawler: 3 });
    const crawlerIps = containers.filter((c) => c.service === 'crawler').map((c) => c.ip ?? '?');
    const [limits] = await this.stack.sql("SELECT min_delay_ms, max_concurrency FROM host_politeness WHERE host = 'demo-site:8090'");
    if (!limits) throw new Error('no politeness row for demo-site:8090');
    const since = Date.now();
    const run = await this.finishedRun(await this.requestCrawl(), 10 * 60_000);
    const summary = await this.site<RequestSummary>('GET', `/_control/requests?since=${since}`);
    const verdict = politenessVerdict(summary, { minDelayMs: Number(limits[0]), maxConcurrency: Number(limits[1]) }, crawlerIps);
    if (!verdict.ok) throw new Error(verdict.detail);
    return `run #${run.id} (${run.pages} pages) by 3 crawlers: ${verdict.detail}`;
  }

  get lastRun(): number {
    return this.lastRunId;
  }
}
