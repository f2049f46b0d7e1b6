/**
 * A worker process's small HTTP endpoint (the API has its own routes): `GET /health` answers 200
 * while the database and the queue store answer, 503 otherwise (container health checks), and
 * `GET /metrics` serves the process's Prometheus metrics (token or loopback only).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppContext } from './context.js';
import { METRICS_CONTENT_TYPE, metricsAccess, renderMetrics } from './metrics.js';
import { APP_VERSION } from './version.js';

export type HealthServer = { url: string; close(): Promise<void> };

async function health(ctx: AppContext): Promise<{ ok: boolean; body: Record<string, string> }> {
  const [database, queue] = await Promise.all([
    ctx.database.sql`SELECT 1`.then(() => 'ok', () => 'down'),
    ctx.queues.ping().then(() => 'ok', () => 'down'),
  ]);
  const ok = database === 'ok' && queue === 'ok';
  return { ok, body: { status: ok ? 'ok' : 'degraded', database, queue, version: APP_VERSION } };
}

export async function startHealthServer(ctx: AppContext, services: string[]): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json' }).end('{"detail":"Method not allowed."}');
        return;
      }
      if (path === '/health' || path === '/health/') {
        const { ok, body } = await health(ctx);
        res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify({ ...body, services }));
        return;
      }
      if (path === '/metrics') {
        const access = metricsAccess({ token: ctx.config.METRICS_TOKEN, remoteAddress: req.socket.remoteAddress, authorization: req.headers.authorization });
        if (access !== 'allowed') {
          const status = access === 'unauthorized' ? 401 : 403;
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: status === 401 ? 'A valid metrics token is required.' : 'Metrics are served to loopback clients only; set METRICS_TOKEN to scrape from elsewhere.' }));
          return;
        }
        res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(await renderMetrics());
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found."}');
    })().catch((err: unknown) => {
      ctx.logger.error({ err }, 'health server request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"detail":"Internal error."}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(ctx.config.HEALTH_PORT, ctx.config.HEALTH_HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = ctx.config.HEALTH_HOST.includes(':') ? `[${ctx.config.HEALTH_HOST}]` : ctx.config.HEALTH_HOST;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
